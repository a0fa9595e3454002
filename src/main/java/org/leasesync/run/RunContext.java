package org.leasesync.run;

import java.util.Optional;
import org.leasesync.lease.Fence;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;

/**
 * What a {@link TaskRunner} gets for one run: identity, lease, recovery state, and the only ways to
 * record stages and progress. Used by the run's own thread.
 */
public interface RunContext {

    String runId();

    TaskKey key();

    /** The trigger that started the run. */
    TaskSource source();

    /** The held lease; its lease-lost signal is {@link HeldLease#lostSignal()}. */
    HeldLease lease();

    /**
     * The fence for the next write; call it right before every write.
     *
     * @throws LeaseLostException if the lease is lost, expired locally, or the run was cancelled
     */
    default Fence fence() {
        return lease().checkedFence();
    }

    /** The recovery decision, present when this run took over an unfinished one (resume/restart). */
    Optional<RecoveryDecision> recovery();

    /** The key's checkpoint as read when the run started. */
    Optional<Checkpoint> checkpointAtStart();

    /** True when the user asked to re-check a run that needed attention. */
    boolean checkAgain();

    /** True when the user chose to discard the unconfirmed push (see {@link TriggerRequest}). */
    boolean discardUnconfirmed();

    /**
     * Records that the run entered {@code stage} (guarded write) and tells listeners.
     *
     * @throws LeaseLostException if the lease is no longer current
     */
    void enterStage(Stage stage);

    /** Publishes a short progress text (in memory only; listeners see it). Never blocks on I/O. */
    void progress(String text);

    /**
     * Publishes a short progress text with the run's counts so far (in memory only; listeners see both
     * in {@link RunView#counts()}). Never blocks on I/O. This default drops the counts.
     */
    default void progress(String text, RunProgress counts) {
        progress(text);
    }

    /** The counts last published with {@link #progress(String, RunProgress)}; {@link RunProgress#NONE} before. */
    default RunProgress counts() {
        return RunProgress.NONE;
    }

    /** The time source. */
    TimeSource time();
}
