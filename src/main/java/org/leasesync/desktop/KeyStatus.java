package org.leasesync.desktop;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunView;
import org.leasesync.lease.TaskKey;

/**
 * An immutable status snapshot of one task key, published by {@link StatusTracker} and shown by
 * one card of the window (design.md invariant 10: always one of idle, running, failed, needs
 * attention).
 *
 * @param key the task key
 * @param kind the state
 * @param run the running run, for {@link Kind#RUNNING}
 * @param lastSuccess when the key last synced successfully
 * @param reason the plain reason for failed / needs attention / cancelled
 * @param joinedByUser the user's own click joined the running run
 * @param retryAt for failed runs: when an automatic retry is due, if one is scheduled
 * @param unconfirmedPush for needs attention: the push whose outcome is unknown, from the checkpoint
 * @param otherProcess for failed, needs attention and cancelled: the run shown was made by another
 *     process (e.g. a {@code leasesync sync} on the same data directory), not by this window
 */
public record KeyStatus(TaskKey key, Kind kind, Optional<RunView> run, Optional<Instant> lastSuccess,
                        Optional<String> reason, boolean joinedByUser, Optional<Instant> retryAt,
                        Optional<UnconfirmedPush> unconfirmedPush, Optional<OtherProcess> otherProcess) {

    /**
     * Who made a run that is not this window's, as far as its record tells.
     *
     * @param program the program that ran it ({@code leasesync sync}), empty for runs recorded without one
     * @param pid its process id, from the owner id; empty if the owner id cannot be read
     * @param server the sync server it talked to, empty when not recorded
     * @param sameServer whether that is this window's server (false when unknown)
     */
    public record OtherProcess(Optional<String> program, java.util.OptionalLong pid, Optional<String> server,
                               boolean sameServer) {
        public OtherProcess {
            Objects.requireNonNull(program, "program");
            Objects.requireNonNull(pid, "pid");
            Objects.requireNonNull(server, "server");
        }
    }

    /** Without another process. */
    public KeyStatus(TaskKey key, Kind kind, Optional<RunView> run, Optional<Instant> lastSuccess,
                     Optional<String> reason, boolean joinedByUser, Optional<Instant> retryAt,
                     Optional<UnconfirmedPush> unconfirmedPush) {
        this(key, kind, run, lastSuccess, reason, joinedByUser, retryAt, unconfirmedPush, Optional.empty());
    }

    /**
     * The states a card can show. {@link StatusTracker} publishes the first six, from runs and the
     * database; {@link #PAUSED} and {@link #OFFLINE} are shown by the window over an idle, failed or
     * cancelled key while the user paused syncing or the server cannot be reached.
     */
    public enum Kind { NEVER_SYNCED, IDLE, RUNNING, FAILED, NEEDS_ATTENTION, CANCELLED, PAUSED, OFFLINE }

    /**
     * A push sent but not confirmed, as recorded in the key's checkpoint: what the user needs to tell
     * what "check again" or "discard and resend" is about.
     *
     * @param idempotencyKey the push's idempotency key
     * @param changeIds the change ids it carried, in order
     */
    public record UnconfirmedPush(String idempotencyKey, List<String> changeIds) {
        public UnconfirmedPush {
            Objects.requireNonNull(idempotencyKey, "idempotencyKey");
            changeIds = List.copyOf(changeIds);
        }

        /** The in-flight push of a checkpoint, if it records one with its key. */
        static Optional<UnconfirmedPush> of(Optional<Checkpoint> checkpoint) {
            return checkpoint.filter(Checkpoint::hasPushInFlight)
                    .flatMap(c -> c.idempotencyKey().map(k -> new UnconfirmedPush(k, c.pushChangeIds())));
        }
    }

    /** Without an unconfirmed push. */
    public KeyStatus(TaskKey key, Kind kind, Optional<RunView> run, Optional<Instant> lastSuccess,
                     Optional<String> reason, boolean joinedByUser, Optional<Instant> retryAt) {
        this(key, kind, run, lastSuccess, reason, joinedByUser, retryAt, Optional.empty());
    }

    public KeyStatus {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(unconfirmedPush, "unconfirmedPush");
        Objects.requireNonNull(otherProcess, "otherProcess");
    }

    public static KeyStatus idle(TaskKey key, Optional<Instant> lastSuccess) {
        return new KeyStatus(key, lastSuccess.isPresent() ? Kind.IDLE : Kind.NEVER_SYNCED, Optional.empty(), lastSuccess,
                Optional.empty(), false, Optional.empty());
    }

    KeyStatus withJoinedByUser() {
        return new KeyStatus(key, kind, run, lastSuccess, reason, true, retryAt, unconfirmedPush, otherProcess);
    }

    KeyStatus withOtherProcess(Optional<OtherProcess> other) {
        return new KeyStatus(key, kind, run, lastSuccess, reason, joinedByUser, retryAt, unconfirmedPush, other);
    }
}
