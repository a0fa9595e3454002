package org.leasesync.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;

/**
 * Joining the key's running run instead of starting a second one (docs/architecture.md, "Vocabulary"):
 * <ul>
 *   <li>a run of this process ({@link #joinLocal}): the trigger is recorded as merged into it, or —
 *       a manual "sync again after this" — queues the one follow-up, into which later triggers
 *       merge;</li>
 *   <li>a run of another process ({@link #acquireOrJoinRemote}): the trigger is recorded on that
 *       process's run record. A holder between its grant and that record (milliseconds) is waited
 *       for, a bounded number of polls (about 2 s), so the join lands on the run; a holder that was
 *       finishing frees the key, which is then taken here. Before joining, the key is asked for once
 *       more, so a holder that died after the "held" answer (while this process's database calls
 *       stalled) is taken over instead of joined.</li>
 * </ul>
 *
 * <p>Thread-safe; called under the key's monitor. Blocks on the run store, and on the polls.
 */
final class RunJoiner {

    /** Polls for the run record of a remote holder that has just been granted its lease (~2 s in all). */
    static final int STARTING_POLLS = 100;

    static final Duration STARTING_POLL_INTERVAL = Duration.ofMillis(20);

    /** What {@link #acquireOrJoinRemote} got: the lease (the key was freed), or the join answer. */
    record Acquired(Optional<HeldLease> lease, @Nullable SubmitResult joined) {}

    private final TaskRegistry registry;
    private final RunStore runs;
    private final RunEvents events;

    RunJoiner(TaskRegistry registry, RunStore runs, RunEvents events) {
        this.registry = registry;
        this.runs = runs;
        this.events = events;
    }

    /** Joins the key's local run (or queues its follow-up). */
    SubmitResult joinLocal(LocalRun run, TriggerRequest request) {
        runs.recordMergedTrigger(run.runId, request.triggerId(), request.source(), now());
        if (run.followUpSources != null) {
            run.followUpSources.add(request.source());
            SubmitResult r = request.followUp()
                    ? new SubmitResult.FollowUpQueued(run.view, request.source(), true)
                    : new SubmitResult.Joined(run.view, request.source());
            return events.publish(r);
        }
        if (request.followUp()) {
            run.followUpSources = new ArrayList<>(List.of(request.source()));
            run.view = run.view.withMerged(request.source()).withFollowUp(true);
            return events.publish(new SubmitResult.FollowUpQueued(run.view, request.source(), false));
        }
        run.view = run.view.withMerged(request.source());
        return events.publish(new SubmitResult.Joined(run.view, request.source()));
    }

    /**
     * The key's lease is held by another process: joins its run once its run record exists, or takes
     * the lease if the holder frees the key meanwhile.
     */
    Acquired acquireOrJoinRemote(TriggerRequest request) {
        TaskKey key = request.key();
        for (int poll = 0; ; poll++) {
            if (poll >= STARTING_POLLS || Thread.currentThread().isInterrupted()) {
                return new Acquired(Optional.empty(), joinRemote(request));
            }
            boolean running = runs.runningRun(key).isPresent();
            if (!running) {
                pause(STARTING_POLL_INTERVAL);
            }
            // With a run record to join, the key is still asked for once first: the "held" answer may be
            // older than it looks. A read of the lease row, then a stall of this process's database calls
            // (e.g. while H2 hands its AUTO_SERVER over from a killed host) would otherwise join a run whose
            // owner died meanwhile. The registry reads the row again (its last read is older than
            // REREAD_AFTER), so a holder that died in between is taken over now. A live holder
            // costs one statement more.
            Optional<HeldLease> lease = registry.tryAcquire(key);
            if (lease.isPresent()) {
                return new Acquired(lease, null);
            }
            if (running) {
                return new Acquired(Optional.empty(), joinRemote(request));
            }
        }
    }

    private SubmitResult joinRemote(TriggerRequest request) {
        TaskKey key = request.key();
        Optional<RunRecord> running = runs.runningRun(key);
        if (running.isPresent()) {
            // The merge is the last statement: a connection broken after its commit (H2's AUTO_SERVER host
            // exiting) makes `leasesync sync` retry the whole submit, so any statement after the merge is a
            // window for recording the trigger twice — the likely cause of SyncProcessTest's one failure under
            // load (ten processes: 10 merged sources for 9 joins). The view is built from the record read above.
            RunView view = RunView.of(running.get()).withMerged(request.source());
            runs.recordMergedTrigger(running.get().runId(), request.triggerId(), request.source(), now());
            return events.publish(new SubmitResult.Joined(view, request.source()));
        }
        // Held, but no running record: the holder is between grant and insert, or finishing.
        LeaseRecord held = registry.lease(key).orElse(null);
        String owner = held == null || held.ownerText() == null ? "unknown" : held.ownerText();
        RunView view = new RunView(
                "(starting)",
                key,
                held == null ? 0 : held.epoch(),
                owner,
                request.source(),
                List.of(),
                held == null ? now() : held.renewedAt(),
                Optional.empty(),
                "",
                false,
                false);
        return events.publish(new SubmitResult.Joined(view, request.source()));
    }

    /** Sleeps between polls for a remote holder's run record; an interrupt ends the wait early. */
    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private java.time.Instant now() {
        return registry.time().now();
    }
}
