package org.leasesync.cli;

import ch.qos.logback.core.rolling.RollingFileAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.leasesync.files.OwnerOnlyFiles;

/**
 * Logback's rolling file appender with owner-only files: each log file is created 0600 before
 * Logback opens it (Logback's own {@code FileOutputStream} would take the umask's 0644) — in prudent
 * mode ({@link LoggingSetup}) that is every file a roll-over moves on to — and after each rollover
 * the logs directory is tightened again, at once, and once more when a compression (used only
 * outside prudent mode), which runs on a thread of Logback's own and creates the {@code .gz}
 * archive with the umask, has finished. The directory itself is 0700
 * ({@link LoggingSetup}), so no other account can open an archive in between either.
 *
 * <p>Thread-safety as Logback's appender; {@link #openFile} and {@link #rollover} block on the file
 * system. A file that cannot be made owner-only is reported through Logback's status (like any
 * other failure of the appender) and the log goes on.
 */
final class OwnerOnlyRollingFileAppender<E> extends RollingFileAppender<E> {

    /** How long the archive's compression is waited for after a rollover (10 MB compress in well under this). */
    private static final long COMPRESSION_WAIT_MS = TimeUnit.MINUTES.toMillis(2);

    @Override
    public void openFile(String fileName) throws IOException {
        Path file = Path.of(fileName);
        OwnerOnlyFiles.directory(file.toAbsolutePath().getParent());
        OwnerOnlyFiles.file(file);
        super.openFile(fileName);
    }

    @Override
    public void rollover() {
        super.rollover();
        Path dir = Path.of(getFile()).toAbsolutePath().getParent();
        tighten(dir);
        Thread after = new Thread(() -> tightenAfterCompression(dir), "log-archive-permissions");
        after.setDaemon(true);
        after.start();
    }

    /** Logback compresses {@code <archive><nanos>.tmp} into the archive and then deletes it. */
    private void tightenAfterCompression(Path dir) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMPRESSION_WAIT_MS);
        try {
            while (compressing(dir) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tighten(dir);
    }

    private static boolean compressing(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".tmp"));
        } catch (IOException e) {
            return false;
        }
    }

    private void tighten(Path dir) {
        try {
            OwnerOnlyFiles.tightenTree(dir);
        } catch (IOException e) {
            addError("could not make the log files in " + dir + " owner-only: " + e.getMessage(), e);
        }
    }
}
