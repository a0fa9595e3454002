package org.leasesync.sync;

import java.util.Objects;
import java.util.Optional;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RecoveryDecision;
import org.leasesync.run.RunContext;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskRunner;

/**
 * One sync run for one task key: pull, then push, then done.
 * <ol>
 *   <li><b>Pull</b> ({@link PullStage}) pages after the saved cursor, each request carrying the run's
 *       epoch as fencing token (so the server refuses a stale run's later push, and a stale run's pull
 *       is refused and ends it as a lost lease); each page's records and the new cursor are written
 *       in one guarded transaction; a refused cursor means a full download, whose summary becomes the
 *       run's note in the history. Skipped when resuming a run whose checkpoint says pushing.</li>
 *   <li><b>Push</b> ({@link PushStage}): settle a batch left in flight (query its key first), then
 *       push the outbox batch by batch with idempotency keys and query-before-retry; an entry the
 *       server refuses for good is set aside as rejected and the others keep flowing.</li>
 *   <li><b>Done</b>: checkpoint stage done.</li>
 * </ol>
 * Every write checks the fence first; a lost lease stops the run before its next write. A {@code 401}
 * on any request ends the run at once as {@link org.leasesync.run.RunStatus#SIGNED_OUT}, keeping the
 * outbox and the records.
 *
 * <p>Stateless between runs and thread-safe: one instance serves all keys.
 */
public final class SyncWorker implements TaskRunner {

    private static final System.Logger log = System.getLogger(SyncWorker.class.getName());

    private final SyncRemote remote;
    private final LocalData local;
    private final SyncSettings settings;
    private final PushStage pushStage;
    private final PullStage pullStage;

    public SyncWorker(SyncRemote remote, LocalData local, SyncSettings settings, Sleeper sleeper) {
        this.remote = Objects.requireNonNull(remote, "remote");
        this.local = Objects.requireNonNull(local, "local");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.pushStage = new PushStage(remote, local, settings, Objects.requireNonNull(sleeper, "sleeper"));
        this.pullStage = new PullStage(remote, local, settings);
    }

    // "try": the cancellation scope is held for the block, only its close is used
    @SuppressWarnings("try")
    @Override
    public RunOutcome run(RunContext ctx) throws InterruptedException {
        // a cancel or a lost lease ends the call in flight at once, and refuses the next one
        try (CallCancellation.Scope calls = CallCancellation.open(ctx.lease().lostSignal())) {
            return runStages(ctx);
        }
    }

    private RunOutcome runStages(RunContext ctx) throws InterruptedException {
        Optional<ResyncSummary> resync = Optional.empty();
        try {
            boolean resumeAtPush = ctx.recovery()
                            .map(r -> r.action() == RecoveryDecision.Action.RESUME)
                            .orElse(false)
                    && ctx.checkpointAtStart().flatMap(Checkpoint::stage).orElse(null) == Stage.PUSHING;
            if (!resumeAtPush && !ctx.checkAgain()) {
                resync = pullStage.pull(ctx);
                resync.ifPresent(s -> ctx.progress(s.sentence()));
            }
            ctx.enterStage(Stage.PUSHING);
            PushStage.Pushed pushed = pushStage.push(ctx);
            ctx.fence();
            ctx.enterStage(Stage.DONE);
            local.markDone(ctx.fence(), ctx.runId());
            ctx.progress(summary(pushed));
            return resync.map(s -> RunOutcome.succeeded(s.sentence())).orElse(RunOutcome.succeeded());
        } catch (NeedsAttentionException e) {
            return RunOutcome.needsAttention(withResync(e.getMessage(), resync));
        } catch (NewerFencingTokenException e) {
            log.log(System.Logger.Level.WARNING, "{0}: run {1}: {2}", ctx.key(), ctx.runId(), e.getMessage());
            return RunOutcome.behindServer("stopped: " + e.getMessage(), e.nextEpoch());
        } catch (RemoteException e) {
            if (e.isSignedOut()) {
                // Not retried: the same token would be refused again. The outbox and the records stay;
                // a push in flight stays recorded and is queried once the user has signed in again.
                log.log(
                        System.Logger.Level.WARNING,
                        "{0}: run {1} stopped, signed out: {2}",
                        ctx.key(),
                        ctx.runId(),
                        e.getMessage());
                return RunOutcome.signedOut(withResync(signedOutMessage(e), resync));
            }
            log.log(System.Logger.Level.WARNING, "{0}: run {1} failed: {2}", ctx.key(), ctx.runId(), e.getMessage());
            return RunOutcome.failed(withResync(plain(e), resync), e.retryAfterMillis());
        }
    }

    private static String summary(PushStage.Pushed pushed) {
        int n = pushed.confirmed();
        String text = n == 0 ? "up to date" : "pushed " + n + " change" + (n == 1 ? "" : "s");
        int r = pushed.rejected();
        return r == 0 ? text : text + "; " + r + " edit" + (r == 1 ? "" : "s") + " refused by the server, set aside";
    }

    /** A run that fails after ending a full download still tells what the download changed. */
    private static String withResync(String message, Optional<ResyncSummary> resync) {
        return resync.map(s -> message + ". Before that: " + s.sentence()).orElse(message);
    }

    /** What a signed-out run records: plain, with the words "sign in" the window and the CLI rely on. */
    static String signedOutMessage(RemoteException e) {
        return "signed out: the sync server no longer accepts this device's session (HTTP 401"
                + (e.code().isEmpty() ? "" : " " + e.code()) + "); sign in again";
    }

    static boolean isStaleFencingToken(RemoteException e) {
        return e.kind() == RemoteException.Kind.HTTP && e.status() == 409 && "stale_fencing_token".equals(e.code());
    }

    static String plain(RemoteException e) {
        return e.userMessage() == null ? e.kind().name() : e.userMessage();
    }
}
