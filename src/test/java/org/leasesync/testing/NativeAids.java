package org.leasesync.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The {@code LD_PRELOAD} aids that move time the way the operating system does, for tests with real
 * processes: {@code libbtime.so} (built here with gcc from {@code btime_shift.c}, which the chaos harness ships as a resource)
 * makes {@code /proc/stat} report {@code btime} shifted by {@code $BTIME_SHIFT} seconds, as the
 * kernel does after a wall-clock step; Debian's libfaketime runs a process's wall clock ahead or
 * behind. Neither is ever silently skipped: when one is missing, the test fails saying what to install.
 */
public final class NativeAids {

    /** Debian's libfaketime (package {@code faketime}). */
    public static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private NativeAids() {
    }

    /**
     * {@code target/native/libbtime.so}, compiled from {@code src/main/resources/org/leasesync/chaos/btime_shift.c} if it is
     * missing or older than the source. Blocks while gcc runs.
     *
     * @throws AssertionError naming the fix when gcc is missing or the build fails
     */
    public static synchronized Path btimeShiftLibrary() throws IOException, InterruptedException {
        Path source = Path.of("src/main/resources/org/leasesync/chaos/btime_shift.c").toAbsolutePath();
        Path lib = Path.of("target/native/libbtime.so").toAbsolutePath();
        if (!Files.isRegularFile(source)) {
            throw new AssertionError("the btime shift aid's source is missing: " + source);
        }
        if (Files.isRegularFile(lib) && Files.getLastModifiedTime(lib).compareTo(Files.getLastModifiedTime(source)) >= 0) {
            return lib;
        }
        Files.createDirectories(lib.getParent());
        Path log = lib.resolveSibling("gcc.log");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-o", lib.toString(), source.toString(), "-ldl")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new AssertionError("gcc is needed to build the btime shift aid (" + source + "): install it "
                    + "(Debian: apt-get install gcc); " + e.getMessage(), e);
        }
        if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            gcc.destroyForcibly();
            throw new AssertionError("gcc could not build " + lib + ":\n" + Files.readString(log));
        }
        return lib;
    }

    /**
     * Debian's libfaketime.
     *
     * @throws AssertionError naming the package when it is not installed
     */
    public static Path fakeTimeLibrary() {
        if (!Files.isRegularFile(FAKETIME)) {
            throw new AssertionError(FAKETIME + " is missing: install Debian's faketime (apt-get install faketime); "
                    + ".ci/run does");
        }
        return FAKETIME;
    }
}
