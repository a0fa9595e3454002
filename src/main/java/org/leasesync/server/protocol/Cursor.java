package org.leasesync.server.protocol;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.leasesync.server.store.ScopeHistory;

/**
 * A position in one user+scope's history of changes, as the text of a pull cursor or a push
 * position (docs/protocol.md §4): {@code DBID:SEQ}, {@code DBID:SEQ:GEN} (before this server
 * stamped its writes, or at seq 0) or {@code DBID:SEQ:GEN:STAMP}.
 *
 * @param databaseId the id of the server database that issued it (12 hex digits)
 * @param seq the last seq seen, {@code >= 0}
 * @param generation the tombstone purge generation it was issued at, {@code >= 0} (0 = before any purge)
 * @param stamp the stamp of the write that assigned {@code seq} ({@link ScopeHistory}), 16 hex
 *     digits; null in a cursor issued before stamps existed, and always null at seq 0
 */
public record Cursor(String databaseId, long seq, long generation, String stamp) {

    private static final String NUMBER = "(0|[1-9][0-9]{0,17})";
    private static final Pattern TEXT =
            Pattern.compile("([0-9a-f]{12}):" + NUMBER + "(?::" + NUMBER + "(?::([0-9a-f]{16}))?)?");

    /** @throws IllegalArgumentException naming a bad value */
    public Cursor {
        if (databaseId == null || !databaseId.matches("[0-9a-f]{12}")) {
            throw new IllegalArgumentException("database id must be 12 hex digits, got " + databaseId);
        }
        if (seq < 0 || generation < 0) {
            throw new IllegalArgumentException("seq and generation must be >= 0, got " + seq + ", " + generation);
        }
        if (stamp != null && (seq == 0 || !stamp.matches("[0-9a-f]{16}"))) {
            throw new IllegalArgumentException(
                    "a stamp is 16 hex digits and only follows a seq above 0, got seq " + seq + ", stamp " + stamp);
        }
    }

    /**
     * Parses a cursor's text; {@code what} names it in messages ({@code since}, {@code pushed}).
     *
     * @throws ApiError 400 {@code bad_request} if the text is not a cursor this server could have issued
     */
    public static Cursor parse(String text, String what) {
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            throw ApiError.badRequest(what + " '" + text + "' is not a cursor issued by this server");
        }
        long seq = Long.parseLong(m.group(2));
        long generation = m.group(3) == null ? 0 : Long.parseLong(m.group(3));
        String stamp = m.group(4);
        boolean legacyZeroGeneration = m.group(3) != null && stamp == null && generation == 0;
        if (legacyZeroGeneration || (stamp != null && seq == 0)) {
            throw ApiError.badRequest(what + " '" + text + "' is not a cursor issued by this server");
        }
        return new Cursor(m.group(1), seq, generation, stamp);
    }

    /** This position with another purge generation. */
    public Cursor withGeneration(long newGeneration) {
        return new Cursor(databaseId, seq, newGeneration, stamp);
    }

    /** The text clients echo: the shortest form that says everything this position holds. */
    public String text() {
        if (stamp != null) {
            return databaseId + ":" + seq + ":" + generation + ":" + stamp;
        }
        return databaseId + ":" + seq + (generation > 0 ? ":" + generation : "");
    }

    @Override
    public String toString() {
        return text();
    }
}
