package org.leasesync.server;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/users/{user}/scopes/{scope}/changes} (docs/protocol.md §5, §6): headers, body,
 * idempotency-key handling and push faults. The transaction itself is {@link PushService}.
 *
 * <p>Key handling, in order: a key executing now → 409 (422 if the fingerprint differs); a live
 * stored record → replay (422 if the fingerprint differs); otherwise claim the key in memory,
 * re-check the store (a concurrent request may just have completed), execute, and hold the claim
 * until the response is sent. An executed push writes its audit row in its own transaction
 * ({@link PushService}); a replay's row lists no applied ids, only the duplicates and conflicts the
 * replayed response reports. Thread-safe; blocks on the database and on fault delays.
 */
final class PushHandler implements Handler {

    private static final Logger log = LoggerFactory.getLogger(PushHandler.class);

    private final PushService service;
    private final IdempotencyStore keys;
    private final InFlightKeys inFlight;
    private final FaultSwitches faults;
    private final StatsRecorder stats;
    private final Clock clock;

    PushHandler(PushService service, IdempotencyStore keys, InFlightKeys inFlight, FaultSwitches faults,
                StatsRecorder stats, Clock clock) {
        this.service = service;
        this.keys = keys;
        this.inFlight = inFlight;
        this.faults = faults;
        this.stats = stats;
        this.clock = clock;
    }

    @Override
    public Reply handle(RequestContext ctx) throws Exception {
        stats.push();
        String key = ctx.header(ProtocolHeaders.IDEMPOTENCY_KEY);
        if (key == null || key.isEmpty()) {
            throw new ApiError(400, "idempotency_key_required",
                    "push requests need an Idempotency-Key header (1..255 printable ASCII characters)");
        }
        ProtocolHeaders.optionalToken(ProtocolHeaders.IDEMPOTENCY_KEY, key);
        Fencing fence = Fencing.fromHeaders(ctx);
        PushRequest request = PushRequest.parse(ctx.readBody());
        String path = "/v1/users/" + ctx.user() + "/scopes/" + ctx.scope() + "/changes";
        String hash = Json.sha256("POST " + path + "\n" + Json.canonical(request.tree()));
        InFlightKeys.Claim claim = new InFlightKeys.Claim(ctx.scope(), hash);

        rejectIfExecuting(inFlight.current(ctx.user(), key), hash);
        Optional<Reply> replay = replayIfStored(ctx, key, hash);
        if (replay.isPresent()) {
            return replay.get();
        }
        rejectIfExecuting(inFlight.tryClaim(ctx.user(), key, claim), hash);
        boolean handedOver = false;
        try {
            replay = replayIfStored(ctx, key, hash);
            if (replay.isPresent()) {
                return replay.get();
            }
            Reply reply = execute(ctx, key, hash, request, fence);
            handedOver = true;
            return reply.afterSend(() -> inFlight.release(ctx.user(), key));
        } finally {
            if (!handedOver) {
                inFlight.release(ctx.user(), key);
            }
        }
    }

    private Reply execute(RequestContext ctx, String key, String hash, PushRequest request,
                          Fencing fence) throws SQLException, InterruptedException {
        if (faults.takeFailPush()) {
            throw new ApiError(500, "internal_error", "injected failure (fail-push); nothing was applied");
        }
        PushService.Executed done = service.execute(ctx.user(), ctx.scope(), key, hash, request, fence, ctx.audit());
        stats.applied(done.outcome().applied());
        if (faults.takeDropAfterApply()) {
            log.info("dropping connection after applying push {} for {}|{}", key, ctx.user(), ctx.scope());
            return Reply.dropConnection();
        }
        Duration delay = faults.delayAfterApply();
        if (!delay.isZero()) {
            log.info("delaying response of push {} by {} ms", key, delay.toMillis());
            Thread.sleep(delay.toMillis());
        }
        return Reply.jsonText(200, done.responseJson());
    }

    private Optional<Reply> replayIfStored(RequestContext ctx, String key, String hash) throws SQLException {
        long now = clock.millis();
        keys.purgeExpired(now);
        Optional<IdempotencyStore.StoredPush> stored = keys.find(ctx.user(), key, now);
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        if (!stored.get().requestHash().equals(hash)) {
            throw reused();
        }
        if (ctx.audit().isOn()) {
            ctx.audit().outcome(PushOutcome.ofReplay(stored.get().responseBody()));
        }
        return Optional.of(Reply.jsonText(stored.get().statusCode(), stored.get().responseBody())
                .withHeader(ProtocolHeaders.REPLAYED, "true"));
    }

    private static void rejectIfExecuting(Optional<InFlightKeys.Claim> holder, String hash) {
        if (holder.isEmpty()) {
            return;
        }
        if (!holder.get().requestHash().equals(hash)) {
            throw reused();
        }
        throw new ApiError(409, "idempotency_key_in_use",
                "a request with this Idempotency-Key is still executing; query its status or retry later");
    }

    private static ApiError reused() {
        return new ApiError(422, "idempotency_key_reused",
                "this Idempotency-Key was used for a different request; use a new key for a new batch");
    }
}
