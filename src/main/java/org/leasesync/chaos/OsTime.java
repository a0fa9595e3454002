package org.leasesync.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * How an agent process sees time, moved the way the operating system moves it: its wall
 * clock hours ahead of or behind every other process (the {@code wallclock_shift.c} aid: what
 * Debian's libfaketime does with {@code FAKETIME_DONT_FAKE_MONOTONIC=1}, without breaking the JVM's
 * timed waits, which libfaketime makes return at once; docs/reliability.md), or the
 * kernel's boot time {@code btime} shifted by seconds as after a wall-clock step (the
 * {@code btime_shift.c} aid). Both are {@code LD_PRELOAD} libraries built with gcc from the sources
 * shipped next to this class. Immutable and thread-safe.
 *
 * @param kind what is moved
 * @param amount hours for {@link Kind#AHEAD} and {@link Kind#BEHIND}, seconds (either sign) for
 *     {@link Kind#BTIME}, 0 for {@link Kind#NORMAL}
 */
record OsTime(Kind kind, long amount) {

    /** What is moved. */
    enum Kind {
        NORMAL,
        AHEAD,
        BEHIND,
        BTIME
    }

    static final OsTime NORMAL = new OsTime(Kind.NORMAL, 0);

    /**
     * Where the two {@code LD_PRELOAD} libraries are ({@link #buildAids}).
     *
     * @param wallclockShift {@code libwallclock.so}, from {@code wallclock_shift.c}
     * @param btimeShift {@code libbtime.so}, from {@code btime_shift.c}
     */
    record Libraries(Path wallclockShift, Path btimeShift) {

        /** @throws IllegalArgumentException naming a missing library */
        Libraries {
            for (Path p : new Path[] {wallclockShift, btimeShift}) {
                if (!Files.isRegularFile(p)) {
                    throw new IllegalArgumentException(p + " is missing (an OS time aid; built by OsTime.buildAids)");
                }
            }
        }
    }

    /** The process environment that makes a JVM see this time. */
    Map<String, String> environment(Libraries libs) {
        return switch (kind) {
            case NORMAL -> Map.of();
            // only the wall clock is off: System.nanoTime stays the machine's CLOCK_MONOTONIC, as the
            // journals (and the product's lease timing) need
            case AHEAD, BEHIND ->
                Map.of(
                        "LD_PRELOAD",
                        libs.wallclockShift().toString(),
                        "WALLCLOCK_SHIFT",
                        Long.toString((kind == Kind.AHEAD ? 1 : -1) * amount * 3600));
            case BTIME -> Map.of("LD_PRELOAD", libs.btimeShift().toString(), "BTIME_SHIFT", Long.toString(amount));
        };
    }

    /** For the journal: {@code normal}, {@code wall+3h}, {@code wall-2h}, {@code btime+5s}. */
    String describe() {
        return switch (kind) {
            case NORMAL -> "normal";
            case AHEAD -> "wall+" + amount + "h";
            case BEHIND -> "wall-" + amount + "h";
            case BTIME -> "btime" + (amount >= 0 ? "+" : "") + amount + "s";
        };
    }

    /** A random one: a quarter each of normal, 1–5 h ahead, 1–5 h behind, and btime shifted 2–30 s either way. */
    static OsTime random(RandomGenerator rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> NORMAL;
            case 1 -> new OsTime(Kind.AHEAD, 1 + rnd.nextInt(5));
            case 2 -> new OsTime(Kind.BEHIND, 1 + rnd.nextInt(5));
            default -> new OsTime(Kind.BTIME, (rnd.nextBoolean() ? 1 : -1) * (2 + rnd.nextInt(29)));
        };
    }

    /**
     * Compiles the two aids (shipped as the resources {@code wallclock_shift.c} and
     * {@code btime_shift.c}) into {@code dir} with gcc. Blocks while gcc runs.
     *
     * @throws IOException naming the fix when gcc is missing or fails
     */
    static Libraries buildAids(Path dir) throws IOException, InterruptedException {
        return new Libraries(
                build(dir, "wallclock_shift.c", "libwallclock.so"), build(dir, "btime_shift.c", "libbtime.so"));
    }

    private static Path build(Path dir, String sourceName, String libName) throws IOException, InterruptedException {
        Path source = dir.resolve(sourceName);
        try (InputStream in = OsTime.class.getResourceAsStream(sourceName)) {
            if (in == null) {
                throw new IOException(
                        "the resource org/leasesync/chaos/" + sourceName + " is missing (a broken build)");
            }
            Files.createDirectories(dir);
            Files.write(source, in.readAllBytes());
        }
        Path lib = dir.resolve(libName);
        Path log = dir.resolve(libName + ".gcc.log");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-o", lib.toString(), source.toString(), "-ldl")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IOException(
                    "gcc is needed to build the OS time aids (apt-get install gcc), "
                            + "or run with --no-os-time-faults: " + e.getMessage(),
                    e);
        }
        if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            gcc.destroyForcibly();
            throw new IOException("gcc could not build " + lib + ": " + Files.readString(log));
        }
        return lib;
    }
}
