package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.h2.api.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotency keys whose first request is executing now, on any instance (table
 * {@code idempotency_claims}, one row per user + key): claimed in a transaction of its own when a
 * push is accepted, released once its answer is ready or its connection dropped.
 *
 * <p>A claim row is <em>live</em> while the instance that wrote it holds it: for this instance,
 * while the claim is in this instance's in-memory set (its request is executing); for another
 * instance, while that instance is alive ({@link Dialect#isOtherInstanceAlive}: never on H2, whose
 * database has one server; on PostgreSQL, while it holds its advisory lock). A stale row — left by
 * a crash, a killed process, or a release that failed — counts as absent and is replaced by the
 * next claim of the key. A release that fails (database unreachable) is retried by
 * {@link #retryPendingReleases()}.
 *
 * <p>Thread-safe. Every method blocks on the database; {@link #release} never throws.
 */
public final class ClaimStore {

    /** One claim: the request's scope and fingerprint, who made it, and its own id. */
    public record Claim(String scope, String requestHash, String instanceId, String claimId) {}

    /** What {@link #tryClaim} got: {@code mine} true if the key is now this request's. */
    public record Attempt(boolean mine, Claim claim) {}

    private static final Logger log = LoggerFactory.getLogger(ClaimStore.class);
    private static final int CLAIM_ATTEMPTS = 5;

    private final ServerDatabase db;
    private final Clock clock;
    private final ConcurrentHashMap<String, Claim> held = new ConcurrentHashMap<>();
    private final Set<PendingRelease> pendingReleases = ConcurrentHashMap.newKeySet();

    private record PendingRelease(String user, String key, String claimId) {}

    public ClaimStore(ServerDatabase db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    /** The live claim on the user's key, if any. */
    public Optional<Claim> current(String user, String key) throws SQLException {
        Claim mine = held.get(id(user, key));
        if (mine != null) {
            return Optional.of(mine);
        }
        try (Connection c = db.connection()) {
            Optional<Claim> row = read(c, user, key, false);
            return row.isPresent() && isLive(c, user, key, row.get()) ? row : Optional.empty();
        }
    }

    /**
     * Claims the user's key for a request with {@code scope} and {@code requestHash}, unless a live
     * claim holds it. The claim is committed before this returns.
     *
     * @return {@code mine == true} with the new claim, or {@code mine == false} with the live claim
     *     that holds the key
     */
    public Attempt tryClaim(String user, String key, String scope, String requestHash) throws SQLException {
        Claim claim =
                new Claim(scope, requestHash, db.instanceId(), UUID.randomUUID().toString());
        Claim local = held.putIfAbsent(id(user, key), claim);
        if (local != null) {
            return new Attempt(false, local);
        }
        try {
            Optional<Claim> other = claimInDatabase(user, key, claim);
            if (other.isPresent()) {
                held.remove(id(user, key), claim);
                return new Attempt(false, other.get());
            }
            return new Attempt(true, claim);
        } catch (SQLException | RuntimeException e) {
            held.remove(id(user, key), claim);
            throw e;
        }
    }

    /** Inserts the claim, replacing a stale one; returns the live claim that prevents it, if any. */
    private Optional<Claim> claimInDatabase(String user, String key, Claim claim) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            for (int attempt = 1; ; attempt++) {
                try {
                    Optional<Claim> existing = read(c, user, key, true);
                    if (existing.isPresent()) {
                        if (isLive(c, user, key, existing.get())) {
                            c.commit();
                            return existing;
                        }
                        log.info(
                                "replacing the stale claim of instance {} on key {} of {}",
                                existing.get().instanceId(),
                                key,
                                user);
                        delete(c, user, key, existing.get().claimId());
                    }
                    insert(c, user, key, claim);
                    c.commit();
                    return Optional.empty();
                } catch (SQLException e) {
                    DatabaseErrors.rollbackAfter(c, e);
                    // Another instance inserted the key between our read and our insert: read again.
                    if (!DatabaseErrors.isUniqueViolation(e) && !isRace(e)) {
                        throw e;
                    }
                    if (attempt >= CLAIM_ATTEMPTS) {
                        throw new SQLTransientException(
                                "could not claim idempotency key " + key + " of " + user + " after " + attempt
                                        + " attempts",
                                e);
                    }
                }
            }
        }
    }

    private static boolean isRace(SQLException e) {
        // serialization failures and deadlocks are races; connection failures are not
        String state = e.getSQLState();
        return state != null
                && (state.startsWith("40") || state.equals(ErrorCode.getState(ErrorCode.CONCURRENT_UPDATE_1)));
    }

    /**
     * Releases a claim made by {@link #tryClaim}. Never throws: if the database cannot be reached,
     * the claim is dropped from this instance's set (so this instance already treats it as stale)
     * and its row is deleted later by {@link #retryPendingReleases()}.
     */
    public void release(String user, String key, Claim claim) {
        try (Connection c = db.connection()) {
            delete(c, user, key, claim.claimId());
        } catch (SQLException e) {
            log.warn("could not release the claim on key {} of {} now, will retry: {}", key, user, e.toString());
            releaseLater(user, key, claim);
        } finally {
            held.remove(id(user, key), claim);
        }
    }

    private void releaseLater(String user, String key, Claim claim) {
        pendingReleases.add(new PendingRelease(user, key, claim.claimId()));
    }

    /**
     * Deletes the rows of releases that failed before. Never throws.
     *
     * @return true if there were any (deleted now or still failing); false if none was pending
     */
    public boolean retryPendingReleases() {
        boolean any = false;
        for (PendingRelease p : pendingReleases) {
            any = true;
            try (Connection c = db.connection()) {
                delete(c, p.user(), p.key(), p.claimId());
                pendingReleases.remove(p);
            } catch (SQLException e) {
                log.debug("claim release still failing: {}", e.toString());
                return true;
            }
        }
        return any;
    }

    /**
     * At start on H2, where this is the only instance: deletes every claim row (all are stale).
     */
    public void deleteAll() throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM idempotency_claims")) {
            ps.executeUpdate();
        }
    }

    /** At shutdown: deletes this instance's claim rows. Never throws. */
    public void releaseAllOwn() {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM idempotency_claims WHERE instance_id = ?")) {
            ps.setString(1, db.instanceId());
            ps.executeUpdate();
        } catch (SQLException e) {
            log.debug("could not delete this instance's claims at shutdown: {}", e.toString());
        }
    }

    private boolean isLive(Connection c, String user, String key, Claim claim) throws SQLException {
        if (claim.instanceId().equals(db.instanceId())) {
            return claim.equals(held.get(id(user, key)));
        }
        return db.dialect().isOtherInstanceAlive(c, claim.instanceId());
    }

    private static Optional<Claim> read(Connection c, String user, String key, boolean forUpdate) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT scope, request_hash, instance_id, claim_id"
                + " FROM idempotency_claims WHERE user_id = ? AND idem_key = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
            ps.setString(1, user);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Claim(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                        : Optional.empty();
            }
        }
    }

    private void insert(Connection c, String user, String key, Claim claim) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO idempotency_claims (user_id, idem_key, scope,"
                + " request_hash, instance_id, claim_id, claimed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, user);
            ps.setString(2, key);
            ps.setString(3, claim.scope());
            ps.setString(4, claim.requestHash());
            ps.setString(5, claim.instanceId());
            ps.setString(6, claim.claimId());
            ps.setLong(7, clock.millis());
            ps.executeUpdate();
        }
    }

    private static void delete(Connection c, String user, String key, String claimId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM idempotency_claims WHERE user_id = ? AND idem_key = ? AND claim_id = ?")) {
            ps.setString(1, user);
            ps.setString(2, key);
            ps.setString(3, claimId);
            ps.executeUpdate();
        }
    }

    private static String id(String user, String key) {
        return user + '\n' + key;
    }
}
