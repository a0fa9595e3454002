package org.leasesync.server.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.Json;
import org.leasesync.server.protocol.ProtocolHeaders;
import org.leasesync.server.store.ClaimStore;
import org.leasesync.server.store.IdempotencyStore;

/**
 * {@code GET /v1/users/{user}/scopes/{scope}/pushes/{idempotencyKey}} (docs/protocol.md §7):
 * {@code in_progress} while a live claim holds the key (on any instance sharing the database),
 * else {@code completed} with the stored response, else {@code unknown}. Thread-safe; blocks on
 * the database.
 */
public final class PushStatusHandler implements Handler {

    private final ClaimStore claims;
    private final IdempotencyStore keys;
    private final Clock clock;

    public PushStatusHandler(ClaimStore claims, IdempotencyStore keys, Clock clock) {
        this.claims = claims;
        this.keys = keys;
        this.clock = clock;
    }

    @Override
    public Reply handle(RequestContext ctx) throws Exception {
        String key = ctx.segments().get(6);
        if (!ProtocolHeaders.isToken(key)) {
            throw ApiError.badRequest("idempotency key must be 1..255 printable ASCII characters");
        }
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("idempotencyKey", key);
        Optional<ClaimStore.Claim> claim = claims.current(ctx.user(), key);
        if (claim.isPresent() && claim.get().scope().equals(ctx.scope())) {
            body.put("state", "in_progress");
            return Reply.json(200, body);
        }
        Optional<IdempotencyStore.StoredPush> stored = keys.find(ctx.user(), key, clock.millis());
        if (stored.isEmpty() || !stored.get().scope().equals(ctx.scope())) {
            body.put("state", "unknown");
            return Reply.json(200, body);
        }
        IdempotencyStore.StoredPush p = stored.get();
        body.put("state", "completed");
        body.put("statusCode", p.statusCode());
        body.put("completedAt", Instant.ofEpochMilli(p.completedAtMs()).toString());
        body.put(
                "expiresAt",
                Instant.ofEpochMilli(p.completedAtMs() + keys.retentionMs()).toString());
        body.set("response", Json.readTree(p.responseBody()));
        return Reply.json(200, body);
    }
}
