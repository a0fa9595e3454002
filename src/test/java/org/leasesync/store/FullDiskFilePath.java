package org.leasesync.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.store.fs.FileBase;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * An H2 file system ({@code fulldisk:/path}) over the real one whose writes fail with "No space left
 * on device" while {@link #FULL} is set — the disk filling up, at the file-system boundary, for
 * machines where a small real file system cannot be mounted.
 */
public final class FullDiskFilePath extends FilePathWrapper {

    /** While true, every write fails as on a full disk. */
    public static final AtomicBoolean FULL = new AtomicBoolean();

    static {
        FilePath.register(new FullDiskFilePath());
    }

    /** Registers the file system with H2 (idempotent). */
    public static void register() {
        // the static initialiser did it
    }

    @Override
    public String getScheme() {
        return "fulldisk";
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        return new Channel(super.open(mode));
    }

    private static final class Channel extends FileBase {
        private final FileChannel base;

        Channel(FileChannel base) {
            this.base = base;
        }

        private static void checkSpace() throws IOException {
            if (FULL.get()) {
                throw new IOException("No space left on device");
            }
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return base.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            checkSpace();
            return base.write(src, position);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return base.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            checkSpace();
            return base.write(src);
        }

        @Override
        public long position() throws IOException {
            return base.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            base.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return base.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            base.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            base.force(metaData);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return base.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            base.close();
        }
    }
}
