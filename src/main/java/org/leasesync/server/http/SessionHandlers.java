package org.leasesync.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.PushRequest;
import org.leasesync.server.store.AccountStore;
import org.leasesync.server.store.AccountStore.Credentials;
import org.leasesync.server.store.Passwords;
import org.leasesync.server.store.SessionStore;
import org.leasesync.server.store.SessionStore.NewSession;
import org.leasesync.server.store.SessionStore.Session;
import org.leasesync.server.store.SignInLimits;

/**
 * {@code /v1/sessions} (docs/protocol.md §12): sign in, list the caller's devices, sign out, revoke
 * a device. Thread-safe; every endpoint blocks on the database, and sign-in on one Argon2 hash.
 */
public final class SessionHandlers {

    /** The device name of a sign-in that gives none. */
    static final String DEFAULT_DEVICE = "unnamed device";

    static final int MAX_DEVICE = 100;
    private static final String WRONG = "wrong user name or password";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final AccountStore accounts;
    private final SessionStore sessions;
    private final SignInLimits limits;

    public SessionHandlers(AccountStore accounts, SessionStore sessions, SignInLimits limits) {
        this.accounts = accounts;
        this.sessions = sessions;
        this.limits = limits;
    }

    /**
     * {@code POST /v1/sessions}: 201 with a new session's token; 401 {@code invalid_credentials}
     * alike for an unknown user, a wrong password and a disabled account; 429
     * {@code too_many_attempts} while the failures of this user or address are over the limit
     * ({@link SignInLimits}), checked before the password.
     */
    Reply signIn(RequestContext ctx) throws Exception {
        JsonNode body = PushRequest.parseJson(ctx.readBody());
        if (!body.isObject()) {
            throw ApiError.badRequest("the sign-in body must be a JSON object with user and password");
        }
        String user = text(body, "user", true);
        String password = text(body, "password", true);
        if (password.isEmpty() || password.length() > Passwords.MAX_LENGTH) {
            throw ApiError.badRequest("password must be 1.." + Passwords.MAX_LENGTH + " characters");
        }
        String device = text(body, "device", false);
        if (device == null) {
            device = DEFAULT_DEVICE;
        } else if (device.isEmpty() || device.length() > MAX_DEVICE || !printable(device)) {
            throw ApiError.badRequest("device must be 1.." + MAX_DEVICE + " printable characters");
        }
        Optional<String> name = AccountStore.USER_NAME.matcher(user).matches() ? Optional.of(user) : Optional.empty();
        SignInLimits.Attempt attempt = limits.begin(name, clientAddress(ctx));
        if (attempt.refused()) {
            throw new ApiError(
                    429,
                    "too_many_attempts",
                    "too many failed sign-ins for this user or from this address;" + " try again in "
                            + attempt.retryAfterSeconds() + " s",
                    attempt.retryAfterSeconds());
        }
        Optional<Credentials> account = name.isEmpty() ? Optional.empty() : accounts.credentials(name.get());
        // The hash is compared in every case, so a refusal takes as long whether the account exists or not.
        boolean matches = Passwords.matches(
                password, account.map(Credentials::passwordHash).orElse(null));
        if (!matches || account.isEmpty() || account.get().disabled()) {
            throw new ApiError(401, "invalid_credentials", WRONG);
        }
        limits.succeeded(attempt);
        NewSession made = sessions.create(account.get().name(), device);
        ObjectNode out = NODES.objectNode();
        out.put("token", made.token());
        out.put("sessionId", made.session().id());
        out.put("user", made.session().user());
        out.put("admin", made.session().admin());
        out.put("expiresAt", instant(made.session().expiresAtMs()));
        return Reply.json(201, out);
    }

    /** {@code GET /v1/sessions}: the caller's live sessions, newest first. */
    Reply list(RequestContext ctx) throws SQLException {
        Session current = ctx.session();
        ObjectNode out = NODES.objectNode();
        ArrayNode list = out.putArray("sessions");
        for (Session s : sessions.list(current.user())) {
            ObjectNode n = list.addObject();
            n.put("sessionId", s.id());
            n.put("device", s.device());
            n.put("createdAt", instant(s.createdAtMs()));
            n.put("lastUsedAt", instant(s.lastUsedAtMs()));
            n.put("expiresAt", instant(s.expiresAtMs()));
            n.put("current", s.id().equals(current.id()));
        }
        return Reply.json(200, out);
    }

    /** {@code DELETE /v1/sessions/current} and {@code DELETE /v1/sessions/{id}}: 204, or 404 {@code unknown_session}. */
    Reply revoke(RequestContext ctx) throws SQLException {
        Session current = ctx.session();
        String id = ctx.segments().get(2);
        String target = id.equals("current") ? current.id() : id;
        if (!sessions.revoke(current.user(), target)) {
            throw new ApiError(404, "unknown_session", "no live session with this id belongs to you");
        }
        return Reply.jsonText(204, "");
    }

    private static String text(JsonNode body, String name, boolean required) {
        JsonNode n = body.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                throw ApiError.badRequest(name + " is required");
            }
            return null;
        }
        if (!n.isTextual()) {
            throw ApiError.badRequest(name + " must be a string");
        }
        return n.asText();
    }

    private static boolean printable(String s) {
        return s.codePoints()
                .noneMatch(cp -> Character.isISOControl(cp)
                        || Character.getType(cp) == Character.FORMAT
                        || Character.getType(cp) == Character.UNASSIGNED);
    }

    private static String clientAddress(RequestContext ctx) {
        InetSocketAddress remote = ctx.exchange().getRemoteAddress();
        return remote == null || remote.getAddress() == null
                ? "unknown"
                : remote.getAddress().getHostAddress();
    }

    private static String instant(long epochMs) {
        return Instant.ofEpochMilli(epochMs).toString();
    }
}
