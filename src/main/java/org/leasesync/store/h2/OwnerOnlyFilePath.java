package org.leasesync.store.h2;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;
import org.leasesync.files.OwnerOnlyFiles;

/**
 * The H2 file system ({@code leasesync-owneronly:/path}) that the local database is opened on
 * ({@link DataDirectory#fileUrl}): the real one, except that every file H2 creates — the database
 * ({@code .mv.db}), the lock file ({@code .lock.db}, which holds the key to the database's server),
 * the trace file ({@code .trace.db}), temporary and compaction files — is created 0600 and every
 * file it opens for writing is tightened to that, whatever the process umask.
 *
 * <p>Why a file system and not a {@code chmod} after opening: H2 creates some of these files when
 * no leasesync code runs — the trace file at its first error, a new lock file when another process
 * takes the host role over after the host ended (automatic mixed mode reconnects inside H2) — and a
 * {@code chmod} after the fact leaves each of them readable for a while. The data directory being
 * 0700 is the guard that holds regardless; this makes the files owner-only too, so a directory
 * loosened later by hand, or a copy that keeps permissions, gives nothing away.
 *
 * <p>Every leasesync process registers it before it builds the URL; a process of another program
 * opening the same files with a plain {@code jdbc:h2:file:} URL interoperates with it (the lock
 * file and the server are the same), but creates its own files with its umask.
 *
 * <p>Stateless and thread-safe; registered once with {@link #register()}. Failures to create or
 * tighten a file reach H2 as {@link IOException} (or, where H2's method cannot throw one, as
 * {@link UncheckedIOException}), which H2 reports as an error opening or writing the database.
 */
public final class OwnerOnlyFilePath extends FilePathWrapper {

    /** The scheme, as it appears in the JDBC URL before the absolute path. */
    static final String SCHEME = "leasesync-owneronly";

    private static final class Holder {
        static {
            FilePath.register(new OwnerOnlyFilePath());
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

    private Path real() {
        return Path.of(getBase().toString());
    }

    @Override
    public boolean createFile() {
        try {
            return OwnerOnlyFiles.file(real());
        } catch (IOException e) {
            // H2 reads false as "exists" and goes on to read it, failing with a message naming the file.
            return false;
        }
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        if (!"r".equals(mode)) {
            OwnerOnlyFiles.file(real());
        }
        return super.open(mode);
    }

    @Override
    public OutputStream newOutputStream(boolean append) throws IOException {
        OwnerOnlyFiles.file(real());
        return super.newOutputStream(append);
    }

    @Override
    public void createDirectory() {
        try {
            OwnerOnlyFiles.directory(real());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public FilePath createTempFile(String suffix, boolean inTempDir) throws IOException {
        // H2's own creation takes the umask; the file is empty until H2 writes it, after this.
        FilePath tmp = super.createTempFile(suffix, inTempDir);
        OwnerOnlyFiles.tighten(Path.of(tmp.unwrap().toString()));
        return tmp;
    }
}
