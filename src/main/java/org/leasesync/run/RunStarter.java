package org.leasesync.run;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.leasesync.lease.Fence;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;

/**
 * The start of a run, once the coordinator holds the key's lease — one local transaction under the
 * new fence ({@link RunStore#inOneTransaction}), so a started answer costs one commit after the
 * grant, not one per step — or, through {@link #startIn} inside the grant's own transaction
 * ({@link TaskRegistry#tryAcquireJointly}), one commit in all:
 * <ol>
 *   <li>the highest epoch recorded for the key is read: a grant not above it means the lease table
 *       went back in time, and nothing is written ({@link Outcome.EpochBehind}: the caller raises
 *       the epoch and starts again);</li>
 *   <li>{@link #prepare}: an unfinished run of the key left by an earlier holder is closed under the
 *       new fence, as {@link RecoveryPolicy} decides — {@code ask} ends the attempt as needs
 *       attention, {@code skip} (for a {@code recovery} trigger) as skipped; {@code resume} and
 *       {@code restart} are handed to the new run. A user's check-again or discard becomes the new
 *       run's recovery decision.</li>
 *   <li>{@link #record}: the new run is recorded (status running, stage pulling, first source, the
 *       sources merged into it) and its local state is built.</li>
 * </ol>
 *
 * <p>Thread-safe; blocks on the run store. Called under the key's monitor.
 */
final class RunStarter {

    private static final System.Logger log = System.getLogger(RunStarter.class.getName());

    private final RunStore runs;
    private final TimeSource time;

    RunStarter(RunStore runs, TimeSource time) {
        this.runs = runs;
        this.time = time;
    }

    /**
     * What step 1 decided.
     *
     * @param answer present when no run starts: the answer to the trigger (needs attention or
     *     skipped); the caller releases the lease
     * @param recovery the new run's recovery decision, if any
     * @param checkpoint the key's checkpoint as read at the start
     */
    record Prepared(
            Optional<SubmitResult> answer, Optional<RecoveryDecision> recovery, Optional<Checkpoint> checkpoint) {}

    /** What {@link #start} came to. */
    sealed interface Outcome {
        /** No run starts: the answer to the trigger; the caller releases the lease. */
        record Answer(SubmitResult result) implements Outcome {}

        /** The run was recorded (committed); the caller launches it. */
        record Recorded(LocalRun run) implements Outcome {}

        /** Runs were recorded up to {@code recorded}, not below the granted epoch; nothing was written. */
        record EpochBehind(long recorded) implements Outcome {}
    }

    /**
     * All steps in one transaction under the lease's fence.
     *
     * @throws StoreException if the database fails (nothing is written)
     * @throws LeaseLostException if the fence is not current (nothing is written)
     */
    Outcome start(TriggerRequest request, HeldLease lease, List<TaskSource> alsoMerged) {
        return runs.inOneTransaction(
                lease.fence(),
                "record the start of a run of " + request.key(),
                tx -> startIn(tx, request, lease, alsoMerged));
    }

    /**
     * All steps through {@code tx}, a run store bound to a transaction the caller commits: the one of
     * {@link #start}, or the joint transaction in which the lease was just granted
     * ({@link TaskRegistry#tryAcquireJointly}), so that grant and start are one commit.
     *
     * @throws StoreException if the database fails
     * @throws LeaseLostException if the fence is not current
     */
    Outcome startIn(RunStore tx, TriggerRequest request, HeldLease lease, List<TaskSource> alsoMerged) {
        long recorded = tx.highestEpoch(request.key());
        if (recorded >= lease.fence().epoch()) {
            return new Outcome.EpochBehind(recorded);
        }
        Prepared prepared = prepare(tx, request, lease);
        if (prepared.answer().isPresent()) {
            return new Outcome.Answer(prepared.answer().get());
        }
        return new Outcome.Recorded(record(tx, request, lease, alsoMerged, prepared));
    }

    /** Step 1. @throws StoreException if the database fails */
    Prepared prepare(TriggerRequest request, HeldLease lease) {
        return prepare(runs, request, lease);
    }

    private Prepared prepare(RunStore runs, TriggerRequest request, HeldLease lease) {
        TaskKey key = request.key();
        Fence fence = lease.fence();
        Optional<Checkpoint> checkpoint = runs.checkpoint(key);
        Optional<RecoveryDecision> recovery = Optional.empty();
        Optional<RunRecord> unfinished = runs.runningRun(key).filter(r -> r.epoch() < fence.epoch());
        if (unfinished.isPresent()) {
            RecoveryDecision decision = RecoveryPolicy.decide(unfinished.get(), checkpoint);
            String old = unfinished.get().runId();
            log.log(
                    System.Logger.Level.INFO,
                    "recovering {0} (run {1}): {2} — {3}",
                    key,
                    old,
                    decision.action().wireName(),
                    decision.reason());
            switch (decision.action()) {
                case ASK -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.NEEDS_ATTENTION, decision.reason(), time.now());
                    return new Prepared(
                            Optional.of(new SubmitResult.NeedsAttention(key, decision.reason(), runs.run(old))),
                            Optional.empty(),
                            checkpoint);
                }
                case SKIP -> {
                    runs.closeAbandonedRun(
                            fence, old, RunStatus.SUCCEEDED, "completed (found done by recovery)", time.now());
                    if (request.source() == TaskSource.RECOVERY) {
                        return new Prepared(
                                Optional.of(new SubmitResult.Skipped(key, decision.reason())),
                                Optional.empty(),
                                checkpoint);
                    }
                }
                default -> {
                    runs.closeAbandonedRun(
                            fence,
                            old,
                            RunStatus.FAILED,
                            "interrupted: its owner lost the lease; next run will "
                                    + decision.action().wireName(),
                            time.now());
                    recovery = Optional.of(decision);
                }
            }
        } else if (request.discardUnconfirmed()) {
            recovery = Optional.of(new RecoveryDecision(
                    RecoveryDecision.Action.RESTART,
                    "the user discarded the unconfirmed push; its edits are sent again"));
        } else if (request.checkAgain()) {
            recovery = Optional.of(
                    new RecoveryDecision(RecoveryDecision.Action.RESUME, "checking again from the saved checkpoint"));
        }
        return new Prepared(Optional.empty(), recovery, checkpoint);
    }

    /** Step 2. @throws StoreException if the database fails; LeaseLostException if the fence is not current */
    LocalRun record(TriggerRequest request, HeldLease lease, List<TaskSource> alsoMerged, Prepared prepared) {
        return record(runs, request, lease, alsoMerged, prepared);
    }

    private LocalRun record(
            RunStore runs, TriggerRequest request, HeldLease lease, List<TaskSource> alsoMerged, Prepared prepared) {
        TaskKey key = request.key();
        Fence fence = lease.fence();
        String runId = UUID.randomUUID().toString();
        runs.insertRun(
                fence,
                runId,
                request.source(),
                request.triggerId(),
                Stage.PULLING,
                time.now(),
                prepared.recovery().map(r -> r.action().wireName() + ": " + r.reason()));
        for (TaskSource merged : alsoMerged) {
            runs.recordMergedTrigger(runId, merged, time.now());
        }
        RunView view = new RunView(
                runId,
                key,
                fence.epoch(),
                fence.owner().asString(),
                request.source(),
                alsoMerged,
                time.now(),
                Optional.of(Stage.PULLING),
                "",
                true,
                false);
        return new LocalRun(runId, lease, request, prepared.recovery(), prepared.checkpoint(), view);
    }
}
