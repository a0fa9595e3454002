package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The tombstone horizon of each user+scope (table {@code tombstone_horizons}): what
 * {@link PurgeTombstonesJob} deleted there, so that pulls and pushes stay correct after tombstones
 * are gone (docs/protocol.md §4):
 * <ul>
 *   <li>a pull cursor issued before a purge and below its horizon may have missed a deletion: the
 *       pull is answered {@code invalid_cursor} ({@link Horizon#accepts});</li>
 *   <li>cursors carry the purge {@linkplain Horizon#generation() generation} they were issued at, so
 *       a client that pulls everything again after a purge is not refused on its next page (a
 *       generation moves by a random step, so one lost in a restore is not issued again);</li>
 *   <li>a record created again after its tombstone was purged gets a version above every purged
 *       one ({@link Horizon#versionFloor()}), so a client still holding the tombstone takes it for newer.</li>
 * </ul>
 * Stateless, thread-safe; every method runs in the caller's connection.
 */
public final class TombstoneHorizons {

    /**
     * One user+scope's horizon. {@link #NONE} where no tombstone was ever purged.
     *
     * @param seq the highest seq of a purged tombstone, {@code >= 0}
     * @param versionFloor the highest version of a purged tombstone, {@code >= 0}
     * @param generation grows with every purge that deleted tombstones here (by a random step,
     *     {@link TombstoneHorizons#raise}), {@code >= 0}; 0 = none
     */
    public record Horizon(long seq, long versionFloor, long generation) {

        /** Nothing was ever purged. */
        public static final Horizon NONE = new Horizon(0, 0, 0);

        /** @throws IllegalArgumentException naming a negative value */
        public Horizon {
            if (seq < 0 || versionFloor < 0 || generation < 0) {
                throw new IllegalArgumentException("horizon values must be >= 0, got seq " + seq + ", version floor "
                        + versionFloor + ", generation " + generation);
            }
        }

        /**
         * Whether a pull from cursor ({@code cursorSeq}, {@code cursorGeneration}) misses no purged
         * tombstone: nothing was purged since the cursor was issued (same generation), or every
         * purged tombstone lies at or below the cursor (the client has seen them all). A generation
         * above this one was never issued here: not accepted.
         */
        public boolean accepts(long cursorSeq, long cursorGeneration) {
            if (cursorGeneration > generation) {
                return false;
            }
            return cursorGeneration == generation || cursorSeq >= seq;
        }
    }

    private TombstoneHorizons() {}

    /** The user+scope's horizon ({@link Horizon#NONE} if nothing was purged there). */
    public static Horizon read(Connection c, String user, String scope) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT horizon_seq, version_floor, generation"
                + " FROM tombstone_horizons WHERE user_id = ? AND scope = ?")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Horizon(rs.getLong(1), rs.getLong(2), rs.getLong(3)) : Horizon.NONE;
            }
        }
    }

    /**
     * Raises the user+scope's horizon after a purge of tombstones up to {@code maxSeq} and
     * {@code maxVersion}, and moves its generation up by a random step of 1..{@value #MAX_STEP}.
     * The caller holds the user+scope lock.
     *
     * <p>Why random: a database restored from an older backup has an older generation; counting up
     * by one from there would issue again a generation that cursors from before the restore carry,
     * for another purge, and such a cursor would pass the check of a purge it never saw.
     */
    static void raise(Connection c, String user, String scope, long maxSeq, long maxVersion, long nowMs)
            throws SQLException {
        long step = 1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(MAX_STEP);
        try (PreparedStatement ps = c.prepareStatement("UPDATE tombstone_horizons SET"
                + " horizon_seq = CASE WHEN horizon_seq < ? THEN ? ELSE horizon_seq END,"
                + " version_floor = CASE WHEN version_floor < ? THEN ? ELSE version_floor END,"
                + " generation = generation + ?, purged_at_ms = ? WHERE user_id = ? AND scope = ?")) {
            ps.setLong(1, maxSeq);
            ps.setLong(2, maxSeq);
            ps.setLong(3, maxVersion);
            ps.setLong(4, maxVersion);
            ps.setLong(5, step);
            ps.setLong(6, nowMs);
            ps.setString(7, user);
            ps.setString(8, scope);
            if (ps.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO tombstone_horizons (user_id, scope, horizon_seq,"
                + " version_floor, generation, purged_at_ms) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setLong(3, maxSeq);
            ps.setLong(4, maxVersion);
            ps.setLong(5, step);
            ps.setLong(6, nowMs);
            ps.executeUpdate();
        }
    }

    /** The largest step of a purge generation (so 10^12 purges fit the cursor's 18 digits). */
    static final long MAX_STEP = 1_000_000;
}
