package org.leasesync.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.leasesync.files.OwnerOnlyFiles;

/**
 * An exclusive OS file lock on {@code DATA_DIR/server.lock}: one server per data directory,
 * whether the other one is in this process or another. (H2 alone would let two servers in one
 * process share the file, and each would judge the other's idempotency-key claims stale, because
 * on H2 a server assumes it is the only one on its database.)
 * Released by {@link #close()} or when the process ends.
 */
final class DataDirLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates the directory if needed (owner-only, {@link ServerDataDir}) and locks it without waiting.
     *
     * @throws IllegalStateException if another server holds the lock, or the directory belongs to
     *     another user
     * @throws UncheckedIOException if the directory or lock file cannot be created
     */
    static DataDirLock acquire(Path dataDir) {
        Path file = dataDir.toAbsolutePath().resolve("server.lock");
        FileChannel channel = null;
        try {
            ServerDataDir.prepare(dataDir);
            OwnerOnlyFiles.file(file);
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw held(dataDir, channel);
            }
            return new DataDirLock(channel, lock);
        } catch (OverlappingFileLockException e) {
            throw held(dataDir, channel);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot lock data dir " + dataDir + ": " + e.getMessage(), e);
        }
    }

    private static IllegalStateException held(Path dataDir, FileChannel channel) {
        closeQuietly(channel);
        return new IllegalStateException(
                "cannot open the server database in " + dataDir + ": another server is using this data dir");
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
    }
}
