package org.leasesync.server.store;

import com.sun.net.httpserver.Headers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.PathSegments;
import org.leasesync.server.protocol.ProtocolHeaders;

/**
 * The server's audit log of user requests (table {@code request_audit}; docs/reference-server.md,
 * "Audit log"): one row per request to the pull, push and push-status endpoints, when switched on
 * ({@link ServerConfig#audit()}). No policy lives here: {@link RequestAudit} decides when a row is
 * written; this class holds the SQL.
 *
 * <p>Thread-safe (stateless besides the on/off switch). Methods block on the database; those taking
 * a {@link Connection} run in the caller's transaction.
 */
public final class AuditLog {

    /** One stored row and its sequence number. */
    public record Stored(long seq, AuditEntry entry) {}

    /** Rows after a sequence number, in seq order, and whether more were there when read. */
    public record Page(List<Stored> entries, boolean hasMore) {}

    private static final int MAX_SCOPE_CHARS = 255;
    private static final String COLUMNS = "at_ms, path_user, auth_user, scope, op, client_id, fencing_token,"
            + " idempotency_key, status, code, applied, duplicates, conflicts";

    private final ServerDatabase db;
    private final boolean enabled;

    public AuditLog(ServerDatabase db, boolean enabled) {
        this.db = db;
        this.enabled = enabled;
    }

    /** True if the server records requests. */
    public boolean enabled() {
        return enabled;
    }

    /**
     * The audit of a request about to be handled: on if the log is on and the request is to one of
     * the audited endpoints (method included), else {@link RequestAudit#off()}. Header values that
     * break the protocol's rules are recorded as null. Never throws.
     */
    public RequestAudit begin(String method, String rawPath, Headers headers) {
        if (!enabled) {
            return RequestAudit.off();
        }
        List<String> s;
        try {
            s = PathSegments.of(rawPath);
        } catch (ApiError e) {
            return RequestAudit.off();
        }
        String op = op(method, s);
        if (op == null) {
            return RequestAudit.off();
        }
        String key = op.equals(AuditEntry.PUSH)
                ? headers.getFirst(ProtocolHeaders.IDEMPOTENCY_KEY)
                : op.equals(AuditEntry.PUSH_STATUS) ? s.get(6) : null;
        String scope = s.get(4).length() > MAX_SCOPE_CHARS ? s.get(4).substring(0, MAX_SCOPE_CHARS) : s.get(4);
        return new RequestAudit(
                this,
                op,
                s.get(2),
                scope,
                tokenOrNull(headers.getFirst(ProtocolHeaders.CLIENT_ID)),
                longOrNull(headers.getFirst(ProtocolHeaders.FENCING_TOKEN)),
                tokenOrNull(key));
    }

    /** The audited operation of a request, or null if the request is not to an audited endpoint. */
    public static String op(String method, List<String> s) {
        if (s.size() < 6
                || !s.get(0).equals("v1")
                || !s.get(1).equals("users")
                || !s.get(3).equals("scopes")
                || !AccountStore.USER_NAME.matcher(s.get(2)).matches()) {
            return null;
        }
        if (s.size() == 6 && s.get(5).equals("changes")) {
            return switch (method) {
                case "GET" -> AuditEntry.PULL;
                case "POST" -> AuditEntry.PUSH;
                default -> null;
            };
        }
        return s.size() == 7 && s.get(5).equals("pushes") && method.equals("GET") ? AuditEntry.PUSH_STATUS : null;
    }

    /** Inserts a row in the caller's transaction; the database assigns its seq. */
    void insert(Connection c, AuditEntry e) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO request_audit (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setLong(1, e.atMs());
            ps.setString(2, e.pathUser());
            ps.setString(3, e.authUser());
            ps.setString(4, e.scope());
            ps.setString(5, e.op());
            ps.setString(6, e.clientId());
            if (e.fencingToken() == null) {
                ps.setNull(7, Types.BIGINT);
            } else {
                ps.setLong(7, e.fencingToken());
            }
            ps.setString(8, e.idempotencyKey());
            ps.setInt(9, e.status());
            ps.setString(10, e.code());
            ps.setString(11, joinIds(e.applied()));
            ps.setString(12, joinIds(e.duplicates()));
            ps.setString(13, joinIds(e.conflicts()));
            ps.executeUpdate();
        }
    }

    /** Inserts a row in a transaction of its own. */
    public void insertAlone(AuditEntry e) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(true);
            insert(c, e);
        }
    }

    /** Up to {@code limit} rows with {@code seq > afterSeq}, in seq order (committed rows only). */
    public Page read(long afterSeq, int limit) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("SELECT seq, " + COLUMNS
                        + " FROM request_audit WHERE seq > ? ORDER BY seq" + " OFFSET 0 ROWS FETCH NEXT ? ROWS ONLY")) {
            ps.setLong(1, afterSeq);
            ps.setInt(2, limit + 1);
            List<Stored> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && out.size() <= limit) {
                    long token = rs.getLong(8);
                    Long fencingToken = rs.wasNull() ? null : token;
                    out.add(new Stored(
                            rs.getLong(1),
                            new AuditEntry(
                                    rs.getLong(2),
                                    rs.getString(3),
                                    rs.getString(4),
                                    rs.getString(5),
                                    rs.getString(6),
                                    rs.getString(7),
                                    fencingToken,
                                    rs.getString(9),
                                    rs.getInt(10),
                                    rs.getString(11),
                                    splitIds(rs.getString(12)),
                                    splitIds(rs.getString(13)),
                                    splitIds(rs.getString(14)))));
                }
            }
            boolean more = out.size() > limit;
            return new Page(more ? List.copyOf(out.subList(0, limit)) : List.copyOf(out), more);
        }
    }

    /** Comma-separated, with '%' and ',' inside an id written %25 and %2C; "" for none. */
    static String joinIds(List<String> ids) {
        StringBuilder b = new StringBuilder();
        for (String id : ids) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(id.replace("%", "%25").replace(",", "%2C"));
        }
        return b.toString();
    }

    /** The inverse of {@link #joinIds}. */
    static List<String> splitIds(String joined) {
        if (joined == null || joined.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String part : joined.split(",", -1)) {
            out.add(part.indexOf('%') < 0 ? part : part.replace("%2C", ",").replace("%25", "%"));
        }
        return out;
    }

    private static String tokenOrNull(String value) {
        return ProtocolHeaders.isToken(value) ? value : null;
    }

    private static Long longOrNull(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
