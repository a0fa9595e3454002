package org.leasesync.desktop.resident;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.Database;
import org.leasesync.store.h2.ClosedFileStamp;

/**
 * The tray process's database between its looks: closed, and known unchanged while its file keeps the
 * stamp this process left on it ({@link ClosedFileStamp}). An open H2 file wakes its lock-file
 * watchdog every second, which cost the idle tray more CPU than everything else it does; closed, a
 * look at whether anything changed is one stat of two files.
 *
 * <p>How it is used, on one thread: after reading everything the tray shows, {@link #readAll()} then
 * {@link #letClose letClose(true)}; before the next look, {@link #unchanged()} says whether it can be
 * skipped; after a write of this process's own, {@link #written()}. An in-memory database is never
 * known unchanged.
 *
 * <p>What it may miss: a write another process makes in the moment this one has the file open and
 * closes it again is folded into this process's stamp; it is read at the latest {@link #FULL_READ}
 * after the last full read. Not thread-safe: confined to one thread ({@code resident-io}).
 */
final class IdleDatabase {

    /** How long an unchanged stamp is trusted before the next look reads everything anyway. */
    static final Duration FULL_READ = Duration.ofMinutes(10);
    /** The longest {@link #letClose} waits for the file to be closed. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(3);

    private final Database db;
    private final Optional<Path> dataDir;
    private final TimeSource time;
    private final BooleanSupplier running;
    private Optional<ClosedFileStamp> closedAs = Optional.empty();
    private long lastReadNanos;

    /** @param running whether a run of the tray's keys is going on: the file is then neither let close nor trusted */
    IdleDatabase(Database db, TimeSource time, BooleanSupplier running) {
        this.db = db;
        this.dataDir = db.dataDirectory();
        this.time = time;
        this.running = running;
    }

    /** Everything the tray shows was read just now. */
    void readAll() {
        lastReadNanos = time.monotonicNanos();
    }

    /**
     * Lets the database close ({@link Database#closeIdleConnections}) unless a run uses it (its end is
     * a {@link #written()}) and, once its file is closed,
     * keeps the file's stamp if {@code readAll}: what this process read is all there is. Otherwise (only
     * some of it was read) the next {@link #unchanged()} is false. Blocks up to {@link #CLOSE_WAIT}.
     *
     * @param readAll true after {@link #readAll()}, or after reads of a file that was {@link #unchanged()}
     *     when they began
     */
    void letClose(boolean readAll) {
        closedAs = Optional.empty();
        if (dataDir.isEmpty() || running.getAsBoolean()) {
            return;
        }
        db.closeIdleConnections();
        Optional<ClosedFileStamp> stamp = ClosedFileStamp.await(dataDir.get(), CLOSE_WAIT);
        if (readAll) {
            closedAs = stamp;
        }
    }

    /** This process wrote (or may have): the next {@link #unchanged()} is false. */
    void written() {
        closedAs = Optional.empty();
    }

    /**
     * Whether the database holds nothing this process has not read: its file is closed with the stamp
     * {@link #letClose} kept, the last full read is less than {@link #FULL_READ} ago (on the
     * monotonic clock), and no run is going on. Blocks on a stat.
     */
    boolean unchanged() {
        return closedAs.isPresent()
                && !running.getAsBoolean()
                && time.monotonicNanos() - lastReadNanos < FULL_READ.toNanos()
                && closedAs.get().unchangedIn(dataDir.orElseThrow());
    }
}
