package org.leasesync.server.store;

import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.leasesync.server.store.StatsTables.RunInterval;
import org.leasesync.server.store.StatsTables.RunKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statistics behind {@link ServerStats} and {@code GET /v1/admin/stats}: counted in memory
 * per request, written to the database ({@link StatsTables}) by {@link #flush()} — by the
 * housekeeping thread within a second of a request ({@link #onFirstCount}), before this instance reads them ({@link #snapshot()}) or resets them,
 * and when the instance closes — and read from the database, so every instance reports the same,
 * cluster-wide figures. A request therefore costs no database write for the statistics: an
 * instance writes at most one counter update and one write per run that had requests, per flush.
 *
 * <p>What that costs: an instance that crashes loses the counts and run intervals of its last
 * unflushed second; another instance's figures include this one's up to its last flush (at most
 * a second old); a {@link #reset()} on another instance does not reach counts this instance has
 * not flushed yet, so they are counted after the reset. A flush that fails (database unreachable)
 * keeps what it could not write for the next one; if the database accepted the counter update but
 * the connection broke before it said so, those counts are written twice.
 *
 * <p>Thread-safe: counting never blocks; {@link #flush()}, {@link #snapshot()} and
 * {@link #reset()} are serialised and block on the database.
 */
public final class StatsStore {

    private static final Logger log = LoggerFactory.getLogger(StatsStore.class);

    private final StatsTables tables;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong pushes = new AtomicLong();
    private final ConcurrentHashMap<RunKey, RunInterval> runs = new ConcurrentHashMap<>();
    private final Object flushLock = new Object();
    private volatile boolean flushFailing;
    private volatile Runnable firstCount = () -> {};

    /**
     * @param fromAudit true if this instance writes the audit log: per-change-id counts are then
     *     read from it
     */
    public StatsStore(ServerDatabase db, boolean fromAudit) {
        this.tables = new StatsTables(db, fromAudit);
    }

    /**
     * Deletes the counter rows of earlier instances. Only for a database that has one server at a
     * time (H2), where they are all gone.
     */
    public void forgetEarlierInstances() throws SQLException {
        tables.forgetEarlierInstances();
    }

    /** Adds this instance's counter row (zero). Call once at start, before anything is flushed. */
    public void register(long nowMs) throws SQLException {
        tables.register(nowMs);
    }

    /**
     * Who is told when a request is counted while nothing was (the first after a flush): the
     * housekeeping, which then flushes soon. It runs on the request's thread and must not block.
     */
    public void onFirstCount(Runnable listener) {
        this.firstCount = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** Counts a request to {@code /v1/users/...}. Never blocks. */
    public void request() {
        if (requests.getAndIncrement() == 0) {
            firstCount.run();
        }
    }

    /** Counts a push that passed authentication. Never blocks. */
    public void push() {
        pushes.incrementAndGet();
    }

    /**
     * Widens the interval of run {@code runId} of user+scope to include
     * {@code [arrival, completion]}. Never blocks.
     */
    public void recordRun(String user, String scope, String runId, Instant arrival, Instant completion) {
        long start = micros(arrival);
        runs.merge(
                new RunKey(user, scope, runId),
                new RunInterval(start, Math.max(start, micros(completion))),
                RunInterval::union);
    }

    /**
     * Writes what was counted since the last flush to the database; nothing when nothing was
     * counted. On failure what was not written is kept for the next flush.
     *
     * @throws SQLException if the database fails
     */
    public void flush() throws SQLException {
        synchronized (flushLock) {
            long r = requests.getAndSet(0);
            long p = pushes.getAndSet(0);
            if (r != 0 || p != 0) {
                try {
                    tables.addCounts(r, p);
                } catch (SQLException | RuntimeException e) {
                    requests.addAndGet(r);
                    pushes.addAndGet(p);
                    throw e;
                }
            }
            Map<RunKey, RunInterval> taken = new HashMap<>();
            for (RunKey k : runs.keySet()) {
                RunInterval i = runs.remove(k);
                if (i != null) {
                    taken.put(k, i);
                }
            }
            if (!taken.isEmpty()) {
                try {
                    tables.widenRuns(taken);
                } catch (SQLException | RuntimeException e) {
                    taken.forEach((k, i) -> runs.merge(k, i, RunInterval::union));
                    throw e;
                }
            }
        }
    }

    /**
     * {@link #flush()} for the housekeeping thread and shutdown: never throws; the first failure of
     * a series is logged at WARN, the next ones at DEBUG, the recovery at INFO.
     *
     * @return true if anything had been counted (written now, or kept after a failure); false if there
     *     was nothing to write
     */
    public boolean flushQuietly() {
        boolean counted = requests.get() != 0 || pushes.get() != 0 || !runs.isEmpty();
        try {
            flush();
            if (flushFailing) {
                flushFailing = false;
                log.info("the server statistics are written to the database again");
            }
        } catch (SQLException | RuntimeException e) {
            if (!flushFailing) {
                flushFailing = true;
                log.warn(
                        "cannot write the server statistics to the database (kept for the next try): {}",
                        ServerDatabase.rootMessage(e));
            } else {
                log.debug("cannot write the server statistics: {}", e.toString());
            }
        }
        return counted;
    }

    /** The figures now, for the whole cluster: flushes this instance's counts, then reads the database. */
    public ServerStats snapshot() throws SQLException {
        synchronized (flushLock) {
            flush();
            return tables.snapshot();
        }
    }

    /**
     * Zeroes every figure for the whole cluster: flushes this instance's counts, then zeroes the
     * counters of every instance, forgets the run intervals and moves the starting points of the
     * per-change-id counts, in one transaction.
     */
    public void reset() throws SQLException {
        synchronized (flushLock) {
            flush();
            tables.reset();
        }
    }

    private static long micros(Instant i) {
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1_000);
    }
}
