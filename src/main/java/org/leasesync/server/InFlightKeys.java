package org.leasesync.server;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Idempotency keys whose first request is still executing, held in memory from acceptance until
 * the response has been sent or the connection dropped. A restart ends every claim; only
 * committed work survives it.
 *
 * <p>Thread-safe; claims are atomic ({@link ConcurrentHashMap#putIfAbsent}). Never blocks.
 */
final class InFlightKeys {

    /** Who holds a key: the scope and request fingerprint of the executing request. */
    record Claim(String scope, String requestHash) {
    }

    private final ConcurrentHashMap<String, Claim> claims = new ConcurrentHashMap<>();

    /** Claims the user's key; returns empty on success, or the existing claim if already held. */
    Optional<Claim> tryClaim(String user, String key, Claim claim) {
        return Optional.ofNullable(claims.putIfAbsent(id(user, key), claim));
    }

    Optional<Claim> current(String user, String key) {
        return Optional.ofNullable(claims.get(id(user, key)));
    }

    void release(String user, String key) {
        claims.remove(id(user, key));
    }

    private static String id(String user, String key) {
        return user + '\n' + key;
    }
}
