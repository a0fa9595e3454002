package org.leasesync.sync;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.leasesync.registry.Checkpoint;
import org.leasesync.registry.LeaseLostException;
import org.leasesync.registry.RecoveryDecision;
import org.leasesync.registry.RunContext;
import org.leasesync.registry.RunOutcome;
import org.leasesync.registry.Stage;
import org.leasesync.registry.TaskRunner;

/**
 * One sync run for one task key: pull, then push, then done.
 * <ol>
 *   <li><b>Pull</b> ({@link PullStage}) pages after the saved cursor, each request carrying the run's
 *       epoch as fencing token (so the server refuses a stale run's later push, and a stale run's pull
 *       is refused and ends it as a lost lease); each page's records and the new cursor are written
 *       in one guarded transaction; a refused cursor means a full download, whose summary becomes the
 *       run's note in the history. Skipped when resuming a run whose checkpoint says pushing.</li>
 *   <li><b>Push</b>: first settle a batch left in flight by an earlier run (query its idempotency key
 *       first). Then, per batch of pending outbox entries: save batch and key in the checkpoint,
 *       send, and on an ambiguous result (timeout, dropped connection, unreadable answer) query the
 *       key before anything else: completed → confirm; unknown → resend the same key with the
 *       identical body; in progress → back off and query again; still unconfirmed after the
 *       configured attempts → needs attention, keeping the key.</li>
 *   <li><b>Done</b>: checkpoint stage done.</li>
 * </ol>
 * Every write checks the fence first; a lost lease stops the run before its next write.
 *
 * <p>Stateless between runs and thread-safe: one instance serves all keys.
 */
public final class SyncWorker implements TaskRunner {

    private static final System.Logger log = System.getLogger(SyncWorker.class.getName());

    private final SyncRemote remote;
    private final LocalData local;
    private final SyncSettings settings;
    private final Sleeper sleeper;
    private final PullStage pullStage;

    public SyncWorker(SyncRemote remote, LocalData local, SyncSettings settings, Sleeper sleeper) {
        this.remote = Objects.requireNonNull(remote, "remote");
        this.local = Objects.requireNonNull(local, "local");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.pullStage = new PullStage(remote, local, settings);
    }

    @Override
    public RunOutcome run(RunContext ctx) throws InterruptedException {
        Optional<ResyncSummary> resync = Optional.empty();
        try {
            boolean resumeAtPush = ctx.recovery().map(r -> r.action() == RecoveryDecision.Action.RESUME).orElse(false)
                    && ctx.checkpointAtStart().flatMap(Checkpoint::stage).orElse(null) == Stage.PUSHING;
            if (!resumeAtPush && !ctx.checkAgain()) {
                resync = pullStage.pull(ctx);
                resync.ifPresent(s -> ctx.progress(s.sentence()));
            }
            ctx.enterStage(Stage.PUSHING);
            int pushed = push(ctx);
            ctx.fence();
            ctx.enterStage(Stage.DONE);
            local.markDone(ctx.fence(), ctx.runId());
            ctx.progress(pushed == 0 ? "up to date" : "pushed " + pushed + " change" + (pushed == 1 ? "" : "s"));
            return resync.map(s -> RunOutcome.succeeded(s.sentence())).orElse(RunOutcome.succeeded());
        } catch (NeedsAttentionException e) {
            return RunOutcome.needsAttention(withResync(e.getMessage(), resync));
        } catch (RemoteException e) {
            log.log(System.Logger.Level.WARNING, "{0}: run {1} failed: {2}", ctx.key(), ctx.runId(), e.getMessage());
            return RunOutcome.failed(withResync(plain(e), resync), e.retryAfterMillis());
        }
    }

    /** A run that fails after ending a full download still tells what the download changed. */
    private static String withResync(String message, Optional<ResyncSummary> resync) {
        return resync.map(s -> message + ". Before that: " + s.sentence()).orElse(message);
    }

    private int push(RunContext ctx) throws InterruptedException {
        int pushed = 0;
        Optional<Checkpoint> cp = ctx.checkpointAtStart();
        if (ctx.discardUnconfirmed() && cp.isPresent() && cp.get().idempotencyKey().isPresent()) {
            log.log(System.Logger.Level.WARNING, "{0}: the user discarded unconfirmed push {1} ({2}); its edits are "
                    + "sent again under a new key", ctx.key(), cp.get().idempotencyKey().get(), cp.get().pushChangeIds());
            local.discardInFlight(ctx.fence(), ctx.runId());
            cp = Optional.empty();
        }
        if (cp.isPresent() && cp.get().idempotencyKey().isPresent()) {
            pushed += settleInFlight(ctx, cp.get());
        }
        while (true) {
            List<OutboxEntry> entries = local.pendingOutbox(ctx.key(), settings.pushBatchSize());
            if (entries.isEmpty()) {
                return pushed;
            }
            PushBatch batch = new PushBatch(UUID.randomUUID().toString(), UUID.randomUUID().toString(), entries);
            local.beginPush(ctx.fence(), ctx.runId(), batch);
            ctx.progress("pushing " + entries.size() + " change" + (entries.size() == 1 ? "" : "s"));
            PushResponse response;
            try {
                response = remote.push(ctx.key(), batch, ctx.fence().epoch(), ctx.runId());
            } catch (RemoteException e) {
                response = afterFailedSend(ctx, batch, e, ctx.time().now());
            }
            local.confirmPush(ctx.fence(), ctx.runId(), batch, response);
            pushed += entries.size();
        }
    }

    /** A batch recorded in flight by an earlier run: never resend before asking the server. */
    private int settleInFlight(RunContext ctx, Checkpoint cp) throws InterruptedException {
        String key = cp.idempotencyKey().get();
        List<OutboxEntry> entries = local.outboxEntries(ctx.key(), cp.pushChangeIds());
        if (entries.size() != cp.pushChangeIds().size()) {
            throw new NeedsAttentionException("the checkpoint names a push batch (idempotency key " + key
                    + ") whose outbox entries are no longer all there; cannot resend it safely");
        }
        PushBatch batch = new PushBatch(cp.pushBatchId().orElse(key), key, entries);
        log.log(System.Logger.Level.INFO, "{0}: settling push {1} left in flight by run {2}", ctx.key(), key, cp.runId());
        ctx.progress("checking an interrupted push");
        PushResponse response = confirmByQuery(ctx, batch, cp.pushSentAt().orElse(cp.updatedAt()));
        local.confirmPush(ctx.fence(), ctx.runId(), batch, response);
        return entries.size();
    }

    private PushResponse afterFailedSend(RunContext ctx, PushBatch batch, RemoteException e, java.time.Instant sentAt)
            throws InterruptedException {
        if (e.kind() == RemoteException.Kind.NOT_SENT) {
            throw e; // nothing reached the server; the batch stays recorded and is queried next run
        }
        if (e.kind() == RemoteException.Kind.HTTP) {
            if (isInUse(e)) {
                return confirmByQuery(ctx, batch, sentAt);
            }
            throw refusal(ctx, batch, e);
        }
        log.log(System.Logger.Level.WARNING, "{0}: push {1} outcome unknown ({2}); asking the server before retrying",
                ctx.key(), batch.idempotencyKey(), e.getMessage());
        return confirmByQuery(ctx, batch, sentAt);
    }

    /**
     * Query before retry: asks the server about the key; resends the identical request only when the
     * server says it never saw it.
     */
    private PushResponse confirmByQuery(RunContext ctx, PushBatch batch, java.time.Instant sentAt)
            throws InterruptedException {
        Duration wait = settings.confirmBackoff();
        RemoteException last = null;
        for (int attempt = 1; attempt <= settings.confirmAttempts(); attempt++) {
            ctx.fence();
            PushStatus status = null;
            try {
                status = remote.pushStatus(ctx.key(), batch.idempotencyKey(), ctx.runId());
            } catch (RemoteException e) {
                last = e;   // the question itself failed: ask again after a pause
            }
            if (status != null && status.state() == PushStatus.State.COMPLETED) {
                if (status.response().isPresent()) {
                    return status.response().get();
                }
                throw new NeedsAttentionException("the server finished push " + batch.idempotencyKey()
                        + " with status " + status.statusCode() + " and no result to confirm");
            }
            if (status != null && status.state() == PushStatus.State.UNKNOWN) {
                if (ctx.time().now().isAfter(sentAt.plus(settings.keyRetention()))) {
                    throw new NeedsAttentionException("a push was sent but its result could not be confirmed: "
                            + "the server no longer knows idempotency key " + batch.idempotencyKey());
                }
                ctx.progress("resending an unconfirmed push");
                try {
                    return remote.push(ctx.key(), batch, ctx.fence().epoch(), ctx.runId());
                } catch (RemoteException e) {
                    if (e.kind() == RemoteException.Kind.HTTP && !isInUse(e)) {
                        throw refusal(ctx, batch, e);   // the server answered: nothing was applied
                    }
                    last = e;                            // ambiguous again: ask again
                }
            } else if (status != null) {
                ctx.progress("waiting for the server to finish a push");
            }
            sleeper.sleep(wait);
            wait = wait.multipliedBy(2);
        }
        throw new NeedsAttentionException("a push was sent but its result could not be confirmed (idempotency key "
                + batch.idempotencyKey() + ")" + (last == null ? "" : ": " + plain(last)), last);
    }

    static boolean isStaleFencingToken(RemoteException e) {
        return e.kind() == RemoteException.Kind.HTTP && e.status() == 409 && "stale_fencing_token".equals(e.code());
    }

    private static LeaseLostException leaseTakenOver(RunContext ctx) {
        return new LeaseLostException(ctx.lease().fence(), org.leasesync.registry.LeaseLoss.TAKEN_OVER,
                "the server has seen a newer fencing token for this key");
    }

    private static boolean isInUse(RemoteException e) {
        return e.status() == 409 && "idempotency_key_in_use".equals(e.code());
    }

    /**
     * The server refused a push with an error status: per the protocol nothing was applied and nothing
     * stored. A stale fencing token means the lease is lost; 422 means the local push state is
     * inconsistent (needs attention); anything else fails the run, and the batch stays recorded so the
     * next run asks about its key first.
     */
    private static RuntimeException refusal(RunContext ctx, PushBatch batch, RemoteException e) {
        if (isStaleFencingToken(e)) {
            return leaseTakenOver(ctx);
        }
        if (e.status() == 422) {
            return new NeedsAttentionException("the server says idempotency key " + batch.idempotencyKey()
                    + " was used for a different request; the local push state is inconsistent", e);
        }
        return e;
    }

    private static String plain(RemoteException e) {
        return e.userMessage() == null ? e.kind().name() : e.userMessage();
    }
}
