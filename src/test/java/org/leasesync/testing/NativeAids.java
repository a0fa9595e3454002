package org.leasesync.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The {@code LD_PRELOAD} aids that move time the way the operating system does, for tests with real
 * processes, built here with gcc from the sources the chaos harness ships as resources
 * ({@code src/main/resources/org/leasesync/chaos}): {@code libbtime.so} makes {@code /proc/stat}
 * report {@code btime} shifted by {@code $BTIME_SHIFT} seconds, as the kernel does after a wall-clock
 * step; {@code libwallclock.so} runs a process's wall clock {@code $WALLCLOCK_SHIFT} seconds ahead
 * (or behind), its monotonic clock untouched. (Debian's libfaketime is not used: under it a JVM's
 * {@code Object.wait(timeout)} returns at once, so the JVM spins and its timeouts fire early —
 * docs/reliability.md.) Never silently skipped: when gcc is missing, the test fails saying so.
 */
public final class NativeAids {

    private static final Path SOURCES = Path.of("src/main/resources/org/leasesync/chaos");

    private NativeAids() {}

    /** {@code target/native/libbtime.so}, built if missing or older than its source. */
    public static Path btimeShiftLibrary() throws IOException, InterruptedException {
        return build("btime_shift.c", "libbtime.so");
    }

    /** {@code target/native/libwallclock.so}, built if missing or older than its source. */
    public static Path wallclockShiftLibrary() throws IOException, InterruptedException {
        return build("wallclock_shift.c", "libwallclock.so");
    }

    /** The environment that runs a child process's wall clock {@code hours} ahead (negative: behind). */
    public static Map<String, String> wallClockShifted(int hours) throws IOException, InterruptedException {
        return Map.of(
                "LD_PRELOAD", wallclockShiftLibrary().toString(), "WALLCLOCK_SHIFT", Long.toString(hours * 3600L));
    }

    /**
     * Compiles {@code source} into {@code target/native/lib} if the library is missing or older than
     * the source. Blocks while gcc runs.
     *
     * @throws AssertionError naming the fix when gcc is missing or the build fails
     */
    private static synchronized Path build(String sourceName, String libName) throws IOException, InterruptedException {
        Path source = SOURCES.resolve(sourceName).toAbsolutePath();
        Path lib = Path.of("target/native").resolve(libName).toAbsolutePath();
        if (!Files.isRegularFile(source)) {
            throw new AssertionError("the time aid's source is missing: " + source);
        }
        if (Files.isRegularFile(lib)
                && Files.getLastModifiedTime(lib).compareTo(Files.getLastModifiedTime(source)) >= 0) {
            return lib;
        }
        Files.createDirectories(lib.getParent());
        // Test JVMs run at once (docs/testing.md) and may build the same library together: each builds
        // its own file and moves it into place whole, so none loads a half-written one.
        String own = ProcessHandle.current().pid() + "-" + UUID.randomUUID();
        Path log = lib.resolveSibling(libName + "." + own + ".gcc.log");
        Path built = lib.resolveSibling(libName + "." + own + ".tmp");
        Process gcc;
        try {
            gcc = new ProcessBuilder(
                            "gcc", "-shared", "-fPIC", "-O2", "-o", built.toString(), source.toString(), "-ldl")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "gcc is needed to build the time aid " + source + ": install it "
                            + "(Debian: apt-get install gcc); " + e.getMessage(),
                    e);
        }
        if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            gcc.destroyForcibly();
            throw new AssertionError("gcc could not build " + lib + ":\n" + Files.readString(log));
        }
        Files.move(built, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.deleteIfExists(log);
        return lib;
    }
}
