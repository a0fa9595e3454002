package org.leasesync.registry;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The start of a run, once the coordinator holds the key's lease:
 * <ol>
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
    record Prepared(Optional<SubmitResult> answer, Optional<RecoveryDecision> recovery,
                    Optional<Checkpoint> checkpoint) { }

    /** Step 1. @throws StoreException if the database fails */
    Prepared prepare(TriggerRequest request, HeldLease lease) {
        TaskKey key = request.key();
        Fence fence = lease.fence();
        Optional<Checkpoint> checkpoint = runs.checkpoint(key);
        Optional<RecoveryDecision> recovery = Optional.empty();
        Optional<RunRecord> unfinished = runs.runningRun(key).filter(r -> r.epoch() < fence.epoch());
        if (unfinished.isPresent()) {
            RecoveryDecision decision = RecoveryPolicy.decide(unfinished.get(), checkpoint);
            String old = unfinished.get().runId();
            log.log(System.Logger.Level.INFO, "recovering {0} (run {1}): {2} — {3}", key, old,
                    decision.action().wireName(), decision.reason());
            switch (decision.action()) {
                case ASK -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.NEEDS_ATTENTION, decision.reason(), time.now());
                    return new Prepared(Optional.of(new SubmitResult.NeedsAttention(key, decision.reason(), runs.run(old))),
                            Optional.empty(), checkpoint);
                }
                case SKIP -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.SUCCEEDED, "completed (found done by recovery)", time.now());
                    if (request.source() == TaskSource.RECOVERY) {
                        return new Prepared(Optional.of(new SubmitResult.Skipped(key, decision.reason())),
                                Optional.empty(), checkpoint);
                    }
                }
                default -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.FAILED,
                            "interrupted: its owner lost the lease; next run will " + decision.action().wireName(), time.now());
                    recovery = Optional.of(decision);
                }
            }
        } else if (request.discardUnconfirmed()) {
            recovery = Optional.of(new RecoveryDecision(RecoveryDecision.Action.RESTART,
                    "the user discarded the unconfirmed push; its edits are sent again"));
        } else if (request.checkAgain()) {
            recovery = Optional.of(new RecoveryDecision(RecoveryDecision.Action.RESUME,
                    "checking again from the saved checkpoint"));
        }
        return new Prepared(Optional.empty(), recovery, checkpoint);
    }

    /** Step 2. @throws StoreException if the database fails; LeaseLostException if the fence is not current */
    LocalRun record(TriggerRequest request, HeldLease lease, List<TaskSource> alsoMerged, Prepared prepared) {
        TaskKey key = request.key();
        Fence fence = lease.fence();
        String runId = UUID.randomUUID().toString();
        runs.insertRun(fence, runId, request.source(), Stage.PULLING, time.now(),
                prepared.recovery().map(r -> r.action().wireName() + ": " + r.reason()));
        for (TaskSource merged : alsoMerged) {
            runs.recordMergedTrigger(runId, merged, time.now());
        }
        RunView view = new RunView(runId, key, fence.epoch(), fence.owner().asString(), request.source(),
                alsoMerged, time.now(), Optional.of(Stage.PULLING), "", true, false);
        return new LocalRun(runId, lease, request, prepared.recovery(), prepared.checkpoint(), view);
    }
}
