package org.leasesync.sync;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunContext;
import org.leasesync.run.RunProgress;

/**
 * The push stage of a sync run:
 * <ol>
 *   <li>A batch left in flight by an earlier run is settled first: its idempotency key is queried
 *       before anything is sent (invariant 7, query before retry: docs/architecture.md).</li>
 *   <li>Then, per batch of pending outbox entries: save batch and key in the checkpoint, send, and on
 *       an ambiguous result (timeout, dropped connection, unreadable answer) query the key before
 *       anything else: completed → confirm; unknown → resend the same key with the identical body;
 *       in progress → back off and query again; still unconfirmed after the configured attempts →
 *       needs attention, keeping the key.</li>
 *   <li>A batch the server refuses ({@link PushRefusal}) applied nothing. A refusal that names an
 *       entry sets that entry aside as rejected and sends the rest; one that only says the batch is
 *       too large or invalid splits it in halves, each sent on its own under a new key, down to the
 *       one entry that is refused alone, which is set aside; when that refusal is a 400 that names no
 *       entry, only once the server accepted the same request with no entries (so the refusal was
 *       about the entry, not the request). An entry beyond the record limits (its stored payload is
 *       not a JSON object, nests too deep, ...) is set aside without being sent. So one edit the server can never accept
 *       blocks nothing behind it, and no other entry is lost or sent under a key of another body.
 *       A refusal that is not an entry's fault fails the run.</li>
 * </ol>
 *
 * <p>Stateless between runs and thread-safe: one instance serves all keys.
 */
final class PushStage {

    private static final System.Logger log = System.getLogger(PushStage.class.getName());

    /** What a push stage did. @param confirmed entries the server answered @param rejected entries set aside */
    record Pushed(int confirmed, int rejected) {
        Pushed plus(Pushed o) {
            return new Pushed(confirmed + o.confirmed, rejected + o.rejected);
        }
    }

    private static final Pushed NOTHING = new Pushed(0, 0);

    /** The server's final answer to a batch: its response, or a refusal (nothing applied). */
    private record Answer(PushResponse response, RemoteException refusal) {
        static Answer confirmed(PushResponse r) {
            return new Answer(r, null);
        }

        static Answer refused(RemoteException e) {
            return new Answer(null, e);
        }
    }

    private final SyncRemote remote;
    private final LocalData local;
    private final SyncSettings settings;
    private final Sleeper sleeper;

    PushStage(SyncRemote remote, LocalData local, SyncSettings settings, Sleeper sleeper) {
        this.remote = remote;
        this.local = local;
        this.settings = settings;
        this.sleeper = sleeper;
    }

    Pushed push(RunContext ctx) throws InterruptedException {
        Pushed pushed = NOTHING;
        int total = local.pendingCount(ctx.key());
        ctx.progress(
                total == 0 ? "nothing to push" : "pushing 0 of " + total + " change" + (total == 1 ? "" : "s"),
                ctx.counts().pushing(total));
        Optional<Checkpoint> cp = ctx.checkpointAtStart();
        if (ctx.discardUnconfirmed()
                && cp.isPresent()
                && cp.get().idempotencyKey().isPresent()) {
            log.log(
                    System.Logger.Level.WARNING,
                    "{0}: the user discarded unconfirmed push {1} ({2}); its edits are " + "sent again under a new key",
                    ctx.key(),
                    cp.get().idempotencyKey().get(),
                    cp.get().pushChangeIds());
            local.discardInFlight(ctx.fence(), ctx.runId());
            cp = Optional.empty();
        }
        Set<String> sent = new HashSet<>();
        if (cp.isPresent() && cp.get().idempotencyKey().isPresent()) {
            sent.addAll(cp.get().pushChangeIds());
            pushed = pushed.plus(settleInFlight(ctx, cp.get(), sent));
            pushedSoFar(ctx, pushed);
        }
        while (true) {
            List<OutboxEntry> entries = local.pendingOutbox(ctx.key(), settings.pushBatchSize());
            if (entries.isEmpty()) {
                return pushed;
            }
            List<String> ids = entries.stream().map(OutboxEntry::changeId).toList();
            if (sent.containsAll(ids)) {
                // Every one of them was sent in this run and the server answered without a result for
                // it: they stay in the outbox, and the run ends instead of sending them for ever.
                throw new RemoteException(
                        RemoteException.Kind.AMBIGUOUS,
                        0,
                        "incomplete_answer",
                        -1,
                        "the sync server answered without a result for " + ids.size() + " change"
                                + (ids.size() == 1 ? "" : "s") + "; they stay in the outbox",
                        "push " + ctx.key() + ": no result for changes " + ids + " sent in this run",
                        null);
            }
            pushed = pushed.plus(send(ctx, entries, sent));
            pushedSoFar(ctx, pushed);
        }
    }

    /** Publishes "pushed 40 of 120 changes" with the counts for a progress bar. */
    private static void pushedSoFar(RunContext ctx, Pushed pushed) {
        RunProgress before = ctx.counts();
        int done = pushed.confirmed() + pushed.rejected();
        RunProgress now = before.pushedMore(Math.max(0, done - before.changesPushed()));
        int total = now.pushTotal().orElse(done);
        ctx.progress(
                "pushed " + now.changesPushed() + " of " + Math.max(total, now.changesPushed()) + " change"
                        + (total == 1 ? "" : "s"),
                now);
    }

    /** Sends {@code entries} as one new batch (new idempotency key) and settles the answer. */
    private Pushed send(RunContext ctx, List<OutboxEntry> entries, Set<String> sent) throws InterruptedException {
        entries.forEach(e -> sent.add(e.changeId()));
        PushBatch batch =
                new PushBatch(UUID.randomUUID().toString(), UUID.randomUUID().toString(), entries);
        local.beginPush(ctx.fence(), ctx.runId(), batch);
        ctx.progress("pushing " + entries.size() + " change" + (entries.size() == 1 ? "" : "s"), ctx.counts());
        Answer answer;
        try {
            answer = Answer.confirmed(remote.push(ctx.key(), batch, ctx.fence().epoch(), ctx.runId()));
        } catch (RemoteException e) {
            answer = afterFailedSend(ctx, batch, e, ctx.time().now());
        }
        return settle(ctx, batch, answer, sent);
    }

    /** A batch recorded in flight by an earlier run: never resend before asking the server. */
    private Pushed settleInFlight(RunContext ctx, Checkpoint cp, Set<String> sent) throws InterruptedException {
        String key = cp.idempotencyKey().get();
        List<OutboxEntry> entries = local.outboxEntries(ctx.key(), cp.pushChangeIds());
        if (entries.size() != cp.pushChangeIds().size()) {
            throw new NeedsAttentionException("the checkpoint names a push batch (idempotency key " + key
                    + ") whose outbox entries are no longer all there; cannot resend it safely");
        }
        PushBatch batch = new PushBatch(cp.pushBatchId().orElse(key), key, entries);
        log.log(
                System.Logger.Level.INFO,
                "{0}: settling push {1} left in flight by run {2}",
                ctx.key(),
                key,
                cp.runId());
        ctx.progress("checking an interrupted push");
        return settle(ctx, batch, confirmByQuery(ctx, batch, cp.pushSentAt().orElse(cp.updatedAt())), sent);
    }

    private Pushed settle(RunContext ctx, PushBatch batch, Answer answer, Set<String> sent)
            throws InterruptedException {
        if (answer.response() != null) {
            local.confirmPush(ctx.fence(), ctx.runId(), batch, answer.response());
            Set<String> answered = new HashSet<>();
            answer.response().results().forEach(r -> answered.add(r.changeId()));
            return new Pushed(
                    (int) batch.changeIds().stream().filter(answered::contains).count(), 0);
        }
        return isolate(ctx, batch, answer.refusal(), sent);
    }

    /** The server refused {@code batch} (nothing was applied): find the entry it can never accept. */
    private Pushed isolate(RunContext ctx, PushBatch batch, RemoteException refusal, Set<String> sent)
            throws InterruptedException {
        List<OutboxEntry> entries = batch.entries();
        if (refusal instanceof UnsendableEntryException u) {
            int i = batch.changeIds().indexOf(u.changeId());
            if (i < 0) {
                throw refusal;
            }
            return rejectAndSendTheRest(ctx, entries, i, u.userMessage(), sent);
        }
        PushRefusal verdict = PushRefusal.of(refusal, entries.size());
        switch (verdict.verdict()) {
            case LEASE_LOST ->
                throw new NewerFencingTokenException(ctx.lease().fence().epoch(), refusal);
            case NEEDS_ATTENTION ->
                throw new NeedsAttentionException(
                        "the server says idempotency key " + batch.idempotencyKey()
                                + " was used for a different request; the local push state is inconsistent",
                        refusal);
            case ENTRY -> {
                return rejectAndSendTheRest(
                        ctx, entries, verdict.entryIndex(), reason(refusal, entries.get(verdict.entryIndex())), sent);
            }
            case SPLIT -> {
                if (entries.size() == 1) {
                    if (refusal.status() == 400 && !requestIsAccepted(ctx)) {
                        throw refusal; // the same request with no entry is refused too: not the entry's fault
                    }
                    return rejectAndSendTheRest(ctx, entries, 0, reason(refusal, entries.get(0)), sent);
                }
                log.log(
                        System.Logger.Level.INFO,
                        "{0}: push {1} of {2} entries refused ({3}); sending it in halves "
                                + "to find the entry the server refuses",
                        ctx.key(),
                        batch.idempotencyKey(),
                        entries.size(),
                        refusal.getMessage());
                int half = entries.size() / 2;
                return send(ctx, entries.subList(0, half), sent)
                        .plus(send(ctx, entries.subList(half, entries.size()), sent));
            }
            default ->
                throw refusal; // not an entry's fault: the run fails; the batch stays recorded and is queried next run
        }
    }

    /**
     * Whether the server accepts this run's push request with no entries: a 400 that named no entry,
     * for a push of one entry, is that entry's fault only if so. Nothing is applied either way.
     */
    private boolean requestIsAccepted(RunContext ctx) {
        try {
            remote.push(
                    ctx.key(),
                    PushBatch.probe(UUID.randomUUID().toString()),
                    ctx.fence().epoch(),
                    ctx.runId());
            return true;
        } catch (RemoteException e) {
            if (e.kind() == RemoteException.Kind.HTTP && e.status() == 409 && "stale_fencing_token".equals(e.code())) {
                throw new NewerFencingTokenException(ctx.lease().fence().epoch(), e);
            }
            log.log(
                    System.Logger.Level.INFO,
                    "{0}: a push of no entries is refused too ({1}): the refusal is about"
                            + " the request, not an entry",
                    ctx.key(),
                    e.getMessage());
            return false;
        }
    }

    private Pushed rejectAndSendTheRest(
            RunContext ctx, List<OutboxEntry> entries, int index, String reason, Set<String> sent)
            throws InterruptedException {
        OutboxEntry bad = entries.get(index);
        log.log(
                System.Logger.Level.WARNING,
                "{0}: edit {1} of record {2} set aside as rejected: {3}",
                ctx.key(),
                bad.changeId(),
                bad.recordId(),
                reason);
        local.rejectEntry(ctx.fence(), ctx.runId(), bad, reason);
        ctx.progress("set aside an edit of " + bad.recordId() + " the server refuses");
        List<OutboxEntry> rest = new ArrayList<>(entries);
        rest.remove(index);
        Pushed done = new Pushed(0, 1);
        return rest.isEmpty() ? done : done.plus(send(ctx, rest, sent));
    }

    /** The reason kept with a rejected entry: what the server said, and for 413 the entry's own size. */
    private static String reason(RemoteException e, OutboxEntry entry) {
        StringBuilder r = new StringBuilder("the sync server refused it (HTTP ").append(e.status());
        if (!e.code().isEmpty()) {
            r.append(' ').append(e.code());
        }
        if (!e.serverMessage().isBlank()) {
            r.append(": ").append(e.serverMessage().strip());
        }
        r.append(')');
        if (e.status() == 413) {
            r.append(String.format(
                    Locale.ROOT,
                    "; pushed alone it is %,d bytes, and the protocol allows at most %,d" + " bytes (5 MiB)",
                    PushLimits.aloneBytes(entry),
                    PushLimits.MAX_BODY_BYTES));
        }
        return r.toString();
    }

    private Answer afterFailedSend(RunContext ctx, PushBatch batch, RemoteException e, Instant sentAt)
            throws InterruptedException {
        if (e instanceof UnsendableEntryException) {
            return Answer.refused(e); // nothing was sent
        }
        if (e.kind() == RemoteException.Kind.NOT_SENT) {
            throw e; // nothing reached the server; the batch stays recorded and is queried next run
        }
        if (e.kind() == RemoteException.Kind.HTTP) {
            return isInUse(e) ? confirmByQuery(ctx, batch, sentAt) : Answer.refused(e);
        }
        log.log(
                System.Logger.Level.WARNING,
                "{0}: push {1} outcome unknown ({2}); asking the server before retrying",
                ctx.key(),
                batch.idempotencyKey(),
                e.getMessage());
        return confirmByQuery(ctx, batch, sentAt);
    }

    /**
     * Query before retry: asks the server about the key; resends the identical request only when the
     * server says it never saw it.
     */
    private Answer confirmByQuery(RunContext ctx, PushBatch batch, Instant sentAt) throws InterruptedException {
        Duration wait = settings.confirmBackoff();
        RemoteException last = null;
        for (int attempt = 1; attempt <= settings.confirmAttempts(); attempt++) {
            ctx.fence();
            PushStatus status = null;
            try {
                status = remote.pushStatus(ctx.key(), batch.idempotencyKey(), ctx.runId());
            } catch (RemoteException e) {
                if (e.isSignedOut()) {
                    // The push stays recorded in flight (it really may have arrived): the run after the
                    // next sign-in asks about it first. Asking again now would only be refused again.
                    throw e;
                }
                last = e; // the question itself failed: ask again after a pause
            }
            if (status != null && status.state() == PushStatus.State.COMPLETED) {
                if (status.response().isPresent()) {
                    return Answer.confirmed(status.response().get());
                }
                throw new NeedsAttentionException("the server finished push " + batch.idempotencyKey() + " with status "
                        + status.statusCode() + " and no result to confirm");
            }
            if (status != null && status.state() == PushStatus.State.UNKNOWN) {
                if (ctx.time().now().isAfter(sentAt.plus(settings.keyRetention()))) {
                    throw new NeedsAttentionException("a push was sent but its result could not be confirmed: "
                            + "the server no longer knows idempotency key " + batch.idempotencyKey());
                }
                ctx.progress("resending an unconfirmed push");
                try {
                    return Answer.confirmed(
                            remote.push(ctx.key(), batch, ctx.fence().epoch(), ctx.runId()));
                } catch (UnsendableEntryException e) {
                    return Answer.refused(e); // nothing was sent
                } catch (RemoteException e) {
                    if (e.kind() == RemoteException.Kind.HTTP && !isInUse(e)) {
                        return Answer.refused(e); // the server answered: nothing was applied
                    }
                    last = e; // ambiguous again: ask again
                }
            } else if (status != null) {
                ctx.progress("waiting for the server to finish a push");
            }
            sleeper.sleep(wait);
            wait = wait.multipliedBy(2);
        }
        throw new NeedsAttentionException(
                "a push was sent but its result could not be confirmed (idempotency key " + batch.idempotencyKey() + ")"
                        + (last == null ? "" : ": " + SyncWorker.plain(last)),
                last);
    }

    private static boolean isInUse(RemoteException e) {
        return e.status() == 409 && "idempotency_key_in_use".equals(e.code());
    }
}
