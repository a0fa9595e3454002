package org.leasesync.server.store;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Optional;
import org.leasesync.server.protocol.Cursor;

/**
 * Which writes assigned a user+scope's sequence numbers (table {@code scope_history}), so that a
 * position a client holds can be checked against this database's history (docs/protocol.md §4.2):
 * <ol>
 *   <li>every write that assigns seqs (a push that applied a change, the demo seeding) adds one row,
 *       keyed by the last seq it assigned, with a fresh random stamp, in its own transaction;</li>
 *   <li>a cursor or push position names the stamp of the write that assigned its seq: the row with
 *       the smallest seq at or above it;</li>
 *   <li>a position is on this history if its seq is not above the user+scope's last seq and that
 *       row's stamp is the one it names. A database restored from an older backup has not reached
 *       the seq, or gave it to another write with another stamp: the data went back.</li>
 * </ol>
 * Stateless and thread-safe; every method runs in the caller's connection (and transaction).
 */
public final class ScopeHistory {

    private static final SecureRandom RANDOM = new SecureRandom();

    private ScopeHistory() {}

    /** A new write's stamp: 16 random hex digits. */
    public static String newStamp() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * Records a write that assigned seqs up to {@code lastSeq}; in the write's transaction, which
     * holds the user+scope lock.
     */
    public static void record(Connection c, String user, String scope, long lastSeq, String stamp) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO scope_history (user_id, scope, seq, stamp) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setLong(3, lastSeq);
            ps.setString(4, stamp);
            ps.executeUpdate();
        }
    }

    /**
     * The stamp of the write that assigned {@code seq} ({@code seq >= 1}), or empty if no recorded
     * write reached it.
     */
    public static Optional<String> stampAt(Connection c, String user, String scope, long seq) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT stamp FROM scope_history WHERE user_id = ? AND scope = ?"
                // by seq, spelled as the primary key so H2 stops at the first row instead of sorting all later ones
                + " AND seq >= ? ORDER BY user_id, scope, seq OFFSET 0 ROWS FETCH NEXT 1 ROWS ONLY")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setLong(3, seq);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /**
     * Whether {@code position} (of this database) lies on this history.
     *
     * @param lastSeq the user+scope's last assigned seq, read in the caller's transaction
     * @return empty if it does (or cannot be checked: seq 0, or a cursor without stamp whose seq is
     *     not above {@code lastSeq}); else a sentence saying why not, for the error message
     */
    public static Optional<String> notOnHistory(Connection c, String user, String scope, Cursor position, long lastSeq)
            throws SQLException {
        if (position.seq() > lastSeq) {
            return Optional.of("it names change " + position.seq() + " but this server's newest is " + lastSeq);
        }
        if (position.seq() == 0 || position.stamp() == null) {
            return Optional.empty();
        }
        Optional<String> stamp = stampAt(c, user, scope, position.seq());
        if (stamp.isPresent() && stamp.get().equals(position.stamp())) {
            return Optional.empty();
        }
        return Optional.of("change " + position.seq() + " on this server is not the one the cursor names");
    }
}
