package org.leasesync.store.h2;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.util.List;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * An H2 file system ({@code leasesync-readonly:/path}) over the real one that can only read: every
 * write, create, delete or move fails, so a database opened through it cannot change anything on
 * disk. It also hides H2's lock files ({@code *.lock.db}), which a read-only H2 would otherwise
 * refuse to open past when a crashed process left one behind. Used only by
 * {@link DatabaseFileCheck}, which opens the file read-only at a moment no process writes it.
 *
 * <p>Stateless and thread-safe; registered once with {@link #register()}.
 */
public final class ReadOnlyFilePath extends FilePathWrapper {

    static final String SCHEME = "leasesync-readonly";

    private static final class Holder {
        static {
            FilePath.register(new ReadOnlyFilePath());
        }

        static void init() {
            // the static initialiser registered the file system
        }
    }

    /** Registers the file system with H2 (idempotent). */
    static void register() {
        Holder.init();
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    private boolean isLockFile() {
        return name.endsWith(".lock.db");
    }

    @Override
    public boolean exists() {
        return !isLockFile() && super.exists();
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        if (!"r".equals(mode)) {
            throw refused("open for writing");
        }
        return super.open(mode);
    }

    @Override
    public OutputStream newOutputStream(boolean append) throws IOException {
        throw refused("write");
    }

    @Override
    public boolean createFile() {
        throw new IllegalStateException(refusedMessage("create"));
    }

    @Override
    public void createDirectory() {
        throw new IllegalStateException(refusedMessage("create a directory"));
    }

    @Override
    public void delete() {
        throw new IllegalStateException(refusedMessage("delete"));
    }

    @Override
    public void moveTo(FilePath newName, boolean atomicReplace) {
        throw new IllegalStateException(refusedMessage("move"));
    }

    @Override
    public boolean setReadOnly() {
        return false;
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public FilePath createTempFile(String suffix, boolean inTempDir) throws IOException {
        throw refused("create a temporary file");
    }

    @Override
    public List<FilePath> newDirectoryStream() {
        return super.newDirectoryStream().stream()
                .filter(p -> !p.getName().endsWith(".lock.db"))
                .toList();
    }

    private IOException refused(String what) {
        return new IOException(refusedMessage(what));
    }

    private String refusedMessage(String what) {
        return "read-only check: refused to " + what + " " + name;
    }
}
