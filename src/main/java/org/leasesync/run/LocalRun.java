package org.leasesync.run;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.TaskKey;

/**
 * A run executing in this process: its identity, lease, the trigger and recovery state it started
 * with, and the mutable parts the coordinator keeps while it runs (its view, a queued follow-up, a
 * cancel reason). Fields that change are volatile; {@link #view} is replaced under the key's
 * monitor ({@link ActiveRuns#lockFor}).
 */
final class LocalRun {

    final String runId;
    final HeldLease lease;
    final TriggerRequest request;
    final Optional<RecoveryDecision> recovery;
    final Optional<Checkpoint> checkpoint;
    /** Completes with the result once the run has ended and its lease is released. */
    final CompletableFuture<RunResult> completion = new CompletableFuture<>();

    volatile RunView view;
    /** Sources of the one follow-up run queued behind this one; null when none is queued. */
    volatile @Nullable List<TaskSource> followUpSources;
    /** Why the run was cancelled; null until it is. */
    volatile @Nullable String cancelReason;

    LocalRun(
            String runId,
            HeldLease lease,
            TriggerRequest request,
            Optional<RecoveryDecision> recovery,
            Optional<Checkpoint> checkpoint,
            RunView view) {
        this.runId = runId;
        this.lease = lease;
        this.request = request;
        this.recovery = recovery;
        this.checkpoint = checkpoint;
        this.view = view;
    }

    TaskKey key() {
        return view.key();
    }

    RunHandle handle() {
        return new RunHandle(runId, key(), lease, completion);
    }
}
