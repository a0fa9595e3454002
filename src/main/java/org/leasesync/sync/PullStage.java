package org.leasesync.sync;

import java.util.Optional;
import org.leasesync.run.RunContext;
import org.leasesync.run.RunProgress;

/**
 * The pull stage of a {@link SyncWorker} run:
 * <ol>
 *   <li>pull pages after the saved cursor, each request carrying the run's epoch as fencing token
 *       and the key's push position (so the server notices a restore to before this device's latest
 *       push); each page's records and the new cursor are written in one guarded transaction;</li>
 *   <li>when the server refuses the cursor ({@code invalid_cursor}: its data went back, was
 *       replaced, or purged deletions not seen here), start a full download once per run
 *       ({@link LocalData#resetForResync}) and pull from the beginning; the outbox is kept;</li>
 *   <li>after the last page, end a full download if one is under way — begun now or by an earlier
 *       run that stopped midway ({@link LocalData#finishResync}) — and hand back what it changed.</li>
 * </ol>
 * A stale fencing token ends the run as behind the server ({@link NewerFencingTokenException}); a
 * server that keeps answering "more" without moving on ends it as failed (what was pulled is kept).
 * Stateless and thread-safe.
 */
final class PullStage {

    private static final System.Logger log = System.getLogger(PullStage.class.getName());

    /** A server that keeps saying "more" without moving on would keep a run (and its key) forever. */
    static final int MAX_EMPTY_PAGES_IN_A_ROW = 100;

    private final SyncRemote remote;
    private final LocalData local;
    private final SyncSettings settings;

    PullStage(SyncRemote remote, LocalData local, SyncSettings settings) {
        this.remote = remote;
        this.local = local;
        this.settings = settings;
    }

    /**
     * Pulls until the server has nothing more.
     *
     * @return what a full download changed, when this pull ended one; empty otherwise
     * @throws RemoteException if a request fails (also a second refused cursor in one run)
     * @throws NewerFencingTokenException if the server has seen a newer fencing token for this key
     * @throws org.leasesync.lease.LeaseLostException if the lease is lost
     */
    Optional<ResyncSummary> pull(RunContext ctx) {
        Optional<String> cursor = local.pullCursor(ctx.key());
        Optional<String> pushed = local.pushedPosition(ctx.key());
        int total = 0;
        int pages = 0;
        int emptyInARow = 0;
        boolean resynced = false;
        while (true) {
            PullPage page;
            try {
                page = remote.pull(
                        ctx.key(),
                        cursor,
                        pushed,
                        settings.pullPageSize(),
                        ctx.fence().epoch(),
                        ctx.runId());
            } catch (RemoteException e) {
                if (SyncWorker.isStaleFencingToken(e)) {
                    throw new NewerFencingTokenException(ctx.lease().fence().epoch(), e);
                }
                boolean refused =
                        e.kind() == RemoteException.Kind.HTTP && e.status() == 400 && "invalid_cursor".equals(e.code());
                if (!refused || resynced) {
                    throw e;
                }
                log.log(
                        System.Logger.Level.WARNING,
                        "{0}: the server refused cursor {1} / push position {2} ({3}); "
                                + "downloading everything again",
                        ctx.key(),
                        cursor.orElse(""),
                        pushed.orElse(""),
                        e.getMessage());
                local.resetForResync(ctx.fence(), ctx.runId(), e.reason());
                ctx.progress(ResyncSummary.cause(e.reason()) + "; downloading everything again");
                cursor = Optional.empty();
                pushed = Optional.empty();
                resynced = true;
                continue;
            }
            for (String w : page.withheld()) {
                // A record beyond the record limits would fail every pull; the rest of the data flows.
                log.log(
                        System.Logger.Level.WARNING,
                        "{0}: the sync server''s {1} was not taken: it breaks the" + " record limits",
                        ctx.key(),
                        w);
            }
            local.applyPullPage(ctx.fence(), ctx.runId(), page);
            total += page.records().size();
            pages++;
            ctx.progress("pulled " + total + " record" + (total == 1 ? "" : "s"), RunProgress.pulled(pages, total));
            if (!page.hasMore()) {
                return local.finishResync(ctx.fence(), ctx.runId());
            }
            emptyInARow = page.records().isEmpty() && page.withheld().isEmpty() ? emptyInARow + 1 : 0;
            if (page.nextCursor().equals(cursor.orElse(null)) || emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
                // What was pulled is kept (its cursor is saved); the run ends instead of asking forever.
                throw new RemoteException(
                        RemoteException.Kind.AMBIGUOUS,
                        0,
                        "endless_pull",
                        -1,
                        "the sync server keeps answering that more changes follow without moving on",
                        "pull " + ctx.key() + ": the server answered hasMore with cursor " + page.nextCursor()
                                + (emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW
                                        ? " after " + emptyInARow + " empty pages"
                                        : ", the cursor it was asked for")
                                + "; stopping the pull",
                        null);
            }
            cursor = Optional.of(page.nextCursor());
        }
    }
}
