package org.leasesync.server.http;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.leasesync.server.faults.FaultSwitches;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.Json;
import org.leasesync.server.protocol.ProtocolHeaders;
import org.leasesync.server.protocol.PushOutcome;
import org.leasesync.server.protocol.PushRequest;
import org.leasesync.server.store.ClaimStore;
import org.leasesync.server.store.DatabaseErrors;
import org.leasesync.server.store.IdempotencyStore;
import org.leasesync.server.store.StatsStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/users/{user}/scopes/{scope}/changes} (docs/protocol.md §5, §6): headers, body,
 * idempotency-key handling and push faults. The transaction itself is {@link PushService}.
 *
 * <p>Key handling, in order, the same whichever instance sharing the database the request
 * reaches: a live claim on the key (its first request executing now, on any instance) → 409 (422
 * if the fingerprint differs); a live stored record → replay (422 if the fingerprint differs);
 * otherwise claim the key in the database ({@link ClaimStore}), re-check the store (a concurrent
 * request may just have completed), execute — where the store is checked a third time inside the
 * push transaction, after the scope lock, so two executions can never both apply — and release the
 * claim once the answer is ready ({@link Reply#beforeSend}). An executed push writes its audit row
 * in its own transaction ({@link PushService}); a replay's row lists no applied ids, only the
 * duplicates and conflicts the replayed response reports. Thread-safe; blocks on the database and
 * on fault delays.
 */
public final class PushHandler implements Handler {

    private static final Logger log = LoggerFactory.getLogger(PushHandler.class);

    private final PushService service;
    private final IdempotencyStore keys;
    private final ClaimStore claims;
    private final FaultSwitches faults;
    private final StatsStore stats;
    private final ServerMetrics metrics;
    private final Clock clock;

    public PushHandler(
            PushService service,
            IdempotencyStore keys,
            ClaimStore claims,
            FaultSwitches faults,
            StatsStore stats,
            ServerMetrics metrics,
            Clock clock) {
        this.service = service;
        this.keys = keys;
        this.claims = claims;
        this.faults = faults;
        this.stats = stats;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public Reply handle(RequestContext ctx) throws Exception {
        stats.push();
        String key = ctx.header(ProtocolHeaders.IDEMPOTENCY_KEY);
        if (key == null || key.isEmpty()) {
            throw new ApiError(
                    400,
                    "idempotency_key_required",
                    "push requests need an Idempotency-Key header (1..255 printable ASCII characters)");
        }
        ProtocolHeaders.optionalToken(ProtocolHeaders.IDEMPOTENCY_KEY, key);
        Fencing fence = Fencing.fromHeaders(ctx);
        PushRequest request = PushRequest.parse(ctx.readBody());
        String path = "/v1/users/" + ctx.user() + "/scopes/" + ctx.scope() + "/changes";
        String hash = Json.sha256("POST " + path + "\n" + Json.canonical(request.tree()));

        rejectIfExecuting(claims.current(ctx.user(), key), hash);
        Optional<Reply> replay = replayIfStored(ctx, key, hash);
        if (replay.isPresent()) {
            return replay.get();
        }
        ClaimStore.Attempt attempt = claims.tryClaim(ctx.user(), key, ctx.scope(), hash);
        if (!attempt.mine()) {
            rejectIfExecuting(Optional.of(attempt.claim()), hash);
        }
        ClaimStore.Claim claim = attempt.claim();
        boolean handedOver = false;
        try {
            replay = replayIfStored(ctx, key, hash);
            if (replay.isEmpty()) {
                replay = execute(ctx, key, hash, request, fence);
            }
            handedOver = true;
            return replay.get().beforeSend(() -> claims.release(ctx.user(), key, claim));
        } finally {
            if (!handedOver) {
                claims.release(ctx.user(), key, claim);
            }
        }
    }

    private Optional<Reply> execute(RequestContext ctx, String key, String hash, PushRequest request, Fencing fence)
            throws SQLException, InterruptedException {
        if (faults.takeFailPush()) {
            throw new ApiError(500, "internal_error", "injected failure (fail-push); nothing was applied");
        }
        PushService.Executed done;
        try {
            done = service.execute(ctx.user(), ctx.scope(), key, hash, request, fence, ctx.audit());
        } catch (SQLException e) {
            // Two executions of one key in different scopes (a claim judged stale while its request
            // still ran): the second one's insert of the key record fails. Answer as for a stored key.
            if (DatabaseErrors.isUniqueViolation(e)) {
                Optional<Reply> stored = replayIfStored(ctx, key, hash);
                if (stored.isPresent()) {
                    return stored;
                }
            }
            throw e;
        }
        if (done.alreadyCompleted()) {
            return Optional.of(replay(ctx, done.stored(), hash));
        }
        metrics.pushCommitted(done.outcome());
        if (faults.takeDropAfterApply()) {
            log.info("dropping connection after applying push {} for {}|{}", key, ctx.user(), ctx.scope());
            return Optional.of(Reply.dropConnection());
        }
        Duration delay = faults.delayAfterApply();
        if (!delay.isZero()) {
            log.info("delaying response of push {} by {} ms", key, delay.toMillis());
            Thread.sleep(delay.toMillis());
        }
        return Optional.of(Reply.jsonText(200, done.responseJson()));
    }

    private Optional<Reply> replayIfStored(RequestContext ctx, String key, String hash) throws SQLException {
        // Expired records are ignored here and deleted off the request path (job expire-idempotency-keys).
        Optional<IdempotencyStore.StoredPush> stored = keys.find(ctx.user(), key, clock.millis());
        return stored.isEmpty() ? Optional.empty() : Optional.of(replay(ctx, stored.get(), hash));
    }

    private static Reply replay(RequestContext ctx, IdempotencyStore.StoredPush stored, String hash) {
        if (!stored.requestHash().equals(hash)) {
            throw reused();
        }
        if (ctx.audit().isOn()) {
            ctx.audit().outcome(PushOutcome.ofReplay(stored.responseBody()));
        }
        return Reply.jsonText(stored.statusCode(), stored.responseBody()).withHeader(ProtocolHeaders.REPLAYED, "true");
    }

    private static void rejectIfExecuting(Optional<ClaimStore.Claim> holder, String hash) {
        if (holder.isEmpty()) {
            return;
        }
        if (!holder.get().requestHash().equals(hash)) {
            throw reused();
        }
        throw new ApiError(
                409,
                "idempotency_key_in_use",
                "a request with this Idempotency-Key is still executing; query its status or retry later");
    }

    private static ApiError reused() {
        return new ApiError(
                422,
                "idempotency_key_reused",
                "this Idempotency-Key was used for a different request; use a new key for a new batch");
    }
}
