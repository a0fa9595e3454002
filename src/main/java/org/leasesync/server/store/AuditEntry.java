package org.leasesync.server.store;

import java.util.List;
import java.util.Objects;

/**
 * One row of the audit log (docs/reference-server.md, "Audit log"): what one user request to the
 * pull, push or push-status endpoint asked and got. Immutable.
 *
 * @param atMs server clock, epoch milliseconds: inside the transaction for a committed push or a
 *     fenced pull, else when the answer was decided
 * @param pathUser the user named in the path
 * @param authUser the user the bearer token belongs to; null for a missing, unknown or admin token
 * @param scope the scope path segment (as sent, at most 255 characters; also when it is no scope)
 * @param op {@code pull}, {@code push} or {@code push_status}
 * @param clientId the {@code Client-Id} header; null if absent or invalid
 * @param fencingToken the {@code Fencing-Token} header; null if absent or not a number
 * @param idempotencyKey the push's {@code Idempotency-Key}, or the key a push-status query asks
 *     about; null if none or invalid
 * @param status the HTTP status (200 for a committed push, even if its response was then lost)
 * @param code the error code of a non-2xx answer, else null
 * @param applied change ids applied by this request (not duplicates)
 * @param duplicates change ids reported as duplicate
 * @param conflicts change ids reported as conflict
 */
public record AuditEntry(
        long atMs,
        String pathUser,
        String authUser,
        String scope,
        String op,
        String clientId,
        Long fencingToken,
        String idempotencyKey,
        int status,
        String code,
        List<String> applied,
        List<String> duplicates,
        List<String> conflicts) {

    /** Operation names. */
    public static final String PULL = "pull";

    public static final String PUSH = "push";
    public static final String PUSH_STATUS = "push_status";

    public AuditEntry {
        Objects.requireNonNull(pathUser, "pathUser");
        Objects.requireNonNull(scope, "scope");
        if (!op.equals(PULL) && !op.equals(PUSH) && !op.equals(PUSH_STATUS)) {
            throw new IllegalArgumentException("op must be pull, push or push_status but was '" + op + "'");
        }
        applied = List.copyOf(applied);
        duplicates = List.copyOf(duplicates);
        conflicts = List.copyOf(conflicts);
    }
}
