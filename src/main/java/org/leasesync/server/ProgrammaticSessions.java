package org.leasesync.server;

import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.leasesync.server.store.AccountStore;
import org.leasesync.server.store.SessionStore;

/**
 * The sessions {@link ReferenceServer#tokenFor} and {@link ReferenceServer#adminToken} hand out, the
 * programmatic way in for tests and the embedded server: by user, the token made in this instance,
 * answered again while its session is live. Apart from the server's start and stop because it is
 * a small stateful job of its own over the account and session stores.
 *
 * <p>Thread-safe (one token is made at a time; the server also holds its own lock around a call, as
 * it did when this lived in it, so a token is never made while the demo passwords are given).
 */
final class ProgrammaticSessions {

    private final AccountStore accounts;
    private final SessionStore sessions;
    /** The sessions made in this instance, by user. */
    private final Map<String, String> tokens = new ConcurrentHashMap<>();

    ProgrammaticSessions(AccountStore accounts, SessionStore sessions) {
        this.accounts = accounts;
        this.sessions = sessions;
    }

    /**
     * The live session of {@code user} made here, or a new one (creating the account, with the admin
     * flag when {@code admin}). Blocks on the database.
     *
     * @throws IllegalArgumentException if {@code user} is not a valid account name
     * @throws IllegalStateException if the database fails, or an admin account is asked for that exists
     *     without the admin flag
     */
    synchronized String token(String user, boolean admin) {
        AccountStore.requireName(user);
        try {
            String known = tokens.get(user);
            if (known != null && sessions.authenticate(known).isPresent()) {
                return known;
            }
            accounts.ensure(user, admin);
            if (admin && !accounts.find(user).orElseThrow().admin()) {
                throw new IllegalStateException("the account " + user + " exists without the admin flag");
            }
            String token = sessions.create(user, admin ? "ReferenceServer.adminToken" : "ReferenceServer.tokenFor")
                    .token();
            tokens.put(user, token);
            return token;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot make a session for " + user + ": " + e.getMessage(), e);
        }
    }
}
