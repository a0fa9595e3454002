package org.leasesync.sync;

import java.util.Objects;
import java.util.Optional;
import org.leasesync.registry.Checkpoint;
import org.leasesync.registry.RecoveryDecision;
import org.leasesync.registry.RunContext;
import org.leasesync.registry.RunOutcome;
import org.leasesync.registry.Stage;
import org.leasesync.registry.TaskRunner;

/**
 * One sync run for one task key: pull, then push, then done.
 * <ol>
 *   <li><b>Pull</b> pages after the saved cursor, each request carrying the run's epoch as fencing
 *       token (so the server refuses a stale run's later push, and a stale run's pull is refused and
 *       ends it as a lost lease); each page's records and the new cursor are written in one guarded
 *       transaction. Skipped when resuming a run whose checkpoint says pushing.</li>
 *   <li><b>Push</b> ({@link PushStage}): settle a batch left in flight (query its key first), then
 *       push the outbox batch by batch with idempotency keys and query-before-retry; an entry the
 *       server refuses for good is set aside as rejected and the others keep flowing.</li>
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
    private final PushStage pushStage;

    public SyncWorker(SyncRemote remote, LocalData local, SyncSettings settings, Sleeper sleeper) {
        this.remote = Objects.requireNonNull(remote, "remote");
        this.local = Objects.requireNonNull(local, "local");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.pushStage = new PushStage(remote, local, settings, Objects.requireNonNull(sleeper, "sleeper"));
    }

    @Override
    public RunOutcome run(RunContext ctx) throws InterruptedException {
        try {
            boolean resumeAtPush = ctx.recovery().map(r -> r.action() == RecoveryDecision.Action.RESUME).orElse(false)
                    && ctx.checkpointAtStart().flatMap(Checkpoint::stage).orElse(null) == Stage.PUSHING;
            if (!resumeAtPush && !ctx.checkAgain()) {
                pull(ctx);
            }
            ctx.enterStage(Stage.PUSHING);
            PushStage.Pushed pushed = pushStage.push(ctx);
            ctx.fence();
            ctx.enterStage(Stage.DONE);
            local.markDone(ctx.fence(), ctx.runId());
            ctx.progress(summary(pushed));
            return RunOutcome.succeeded();
        } catch (NeedsAttentionException e) {
            return RunOutcome.needsAttention(e.getMessage());
        } catch (NewerFencingTokenException e) {
            log.log(System.Logger.Level.WARNING, "{0}: run {1}: {2}", ctx.key(), ctx.runId(), e.getMessage());
            return RunOutcome.behindServer("stopped: " + e.getMessage(), e.nextEpoch());
        } catch (RemoteException e) {
            log.log(System.Logger.Level.WARNING, "{0}: run {1} failed: {2}", ctx.key(), ctx.runId(), e.getMessage());
            return RunOutcome.failed(plain(e), e.retryAfterMillis());
        }
    }

    private static String summary(PushStage.Pushed pushed) {
        int n = pushed.confirmed();
        String text = n == 0 ? "up to date" : "pushed " + n + " change" + (n == 1 ? "" : "s");
        int r = pushed.rejected();
        return r == 0 ? text : text + "; " + r + " edit" + (r == 1 ? "" : "s") + " refused by the server, set aside";
    }

    /** A server that keeps saying "more" without moving on would keep a run (and its key) forever. */
    static final int MAX_EMPTY_PAGES_IN_A_ROW = 100;

    private void pull(RunContext ctx) {
        Optional<String> cursor = local.pullCursor(ctx.key());
        int total = 0;
        int emptyInARow = 0;
        boolean resynced = false;
        while (true) {
            long epoch = ctx.fence().epoch();
            PullPage page;
            try {
                page = remote.pull(ctx.key(), cursor, settings.pullPageSize(), epoch, ctx.runId());
            } catch (RemoteException e) {
                if (isStaleFencingToken(e)) {
                    throw new NewerFencingTokenException(ctx.lease().fence().epoch(), e);
                }
                boolean unknownCursor = e.kind() == RemoteException.Kind.HTTP && e.status() == 400
                        && "invalid_cursor".equals(e.code());
                if (!unknownCursor || resynced) {
                    throw e;
                }
                log.log(System.Logger.Level.WARNING, "{0}: the server does not know cursor {1} ({2}); "
                        + "downloading everything again", ctx.key(), cursor.orElse(""), e.getMessage());
                local.resetForResync(ctx.fence(), ctx.runId());
                ctx.progress("the server's data changed; downloading everything again");
                cursor = Optional.empty();
                resynced = true;
                continue;
            }
            local.applyPullPage(ctx.fence(), ctx.runId(), page);
            total += page.records().size();
            ctx.progress("pulled " + total + " record" + (total == 1 ? "" : "s"));
            if (!page.hasMore()) {
                return;
            }
            emptyInARow = page.records().isEmpty() ? emptyInARow + 1 : 0;
            if (page.nextCursor().equals(cursor.orElse(null)) || emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
                // What was pulled is kept (its cursor is saved); the run ends instead of asking forever.
                throw new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "endless_pull", -1,
                        "the sync server keeps answering that more changes follow without moving on",
                        "pull " + ctx.key() + ": the server answered hasMore with cursor " + page.nextCursor()
                                + (emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW ? " after " + emptyInARow + " empty pages"
                                : ", the cursor it was asked for") + "; stopping the pull", null);
            }
            cursor = Optional.of(page.nextCursor());
        }
    }

    private static boolean isStaleFencingToken(RemoteException e) {
        return e.kind() == RemoteException.Kind.HTTP && e.status() == 409 && "stale_fencing_token".equals(e.code());
    }

    static String plain(RemoteException e) {
        return e.userMessage() == null ? e.kind().name() : e.userMessage();
    }
}
