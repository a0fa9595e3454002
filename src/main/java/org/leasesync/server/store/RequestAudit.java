package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.leasesync.server.http.ApiRouter;
import org.leasesync.server.protocol.PushOutcome;

/**
 * The audit row of one request, filled in while the request is handled and written at most once:
 * by the handler inside the request's own transaction when it commits one (a push that applies,
 * a fenced pull), otherwise by {@link ApiRouter} once the answer is known. When the audit log is
 * off (or the request is not to an audited endpoint) every method does nothing.
 *
 * <p>Confined to the request's thread: not thread-safe.
 */
public final class RequestAudit {

    private final AuditLog log;
    private final String op;
    private final String pathUser;
    private final String scope;
    private final String clientId;
    private final Long fencingToken;
    private final String idempotencyKey;
    private String authUser;
    private PushOutcome outcome = PushOutcome.NONE;
    private boolean written;

    RequestAudit(
            AuditLog log,
            String op,
            String pathUser,
            String scope,
            String clientId,
            Long fencingToken,
            String idempotencyKey) {
        this.log = log;
        this.op = op;
        this.pathUser = pathUser;
        this.scope = scope;
        this.clientId = clientId;
        this.fencingToken = fencingToken;
        this.idempotencyKey = idempotencyKey;
    }

    /** An audit that records nothing. */
    public static RequestAudit off() {
        return new RequestAudit(null, null, null, null, null, null, null);
    }

    /** True if this request gets an audit row. */
    public boolean isOn() {
        return log != null;
    }

    /** True once the row was committed with the request's own transaction. */
    public boolean isWritten() {
        return written;
    }

    public String authUser() {
        return authUser;
    }

    /** The user the request's bearer token belongs to (null: none). */
    public void authUser(String user) {
        authUser = user;
    }

    /** What the push did or reported. */
    public void outcome(PushOutcome pushOutcome) {
        outcome = pushOutcome;
    }

    /**
     * Inserts the row into the caller's transaction, status {@code status} and no error code; call
     * {@link #committed()} once that transaction has committed. Does nothing when off.
     *
     * @throws SQLException if the insert fails (the caller rolls back)
     */
    public void writeIn(Connection c, int status, long atMs) throws SQLException {
        if (log != null) {
            log.insert(c, entry(status, null, atMs));
        }
    }

    /** The transaction holding the row committed: {@link ApiRouter} must not write another. */
    public void committed() {
        written = log != null;
    }

    /**
     * The request's transaction may or may not have committed (its commit failed on a broken
     * connection): {@link ApiRouter} must not write a row of its own either, so that a row exists
     * only if the effects do.
     */
    public void outcomeUnknown() {
        written = log != null;
    }

    /** The row as it stands, with the answer's status and error code. */
    public AuditEntry entry(int status, String code, long atMs) {
        return new AuditEntry(
                atMs,
                pathUser,
                authUser,
                scope,
                op,
                clientId,
                fencingToken,
                idempotencyKey,
                status,
                code,
                outcome.applied(),
                outcome.duplicates(),
                outcome.conflicts());
    }
}
