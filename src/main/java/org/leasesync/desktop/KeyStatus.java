package org.leasesync.desktop;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunView;
import org.leasesync.run.TaskSource;

/**
 * An immutable status snapshot of one task key, published by {@link StatusTracker} and shown by
 * one card of the window (docs/architecture.md, invariant 10, the user is never left guessing:
 * always one of idle, running, failed, needs attention). Each case carries the values its state
 * has, so a reader asks for a value by asking for the case ({@code s instanceof KeyStatus.Failed f})
 * and never finds it missing.
 *
 * <p>A pause or the server being unreachable is not a case: the window shows them over the stored
 * state ({@link CardOverlay}), which comes back as it was once they end.
 *
 * <p>Every case is immutable and safe to share between threads. An empty {@link Optional} means the
 * value is not known or did not happen (no successful sync yet, no reason recorded, no retry due),
 * never that the case lacks it.
 */
public sealed interface KeyStatus
        permits KeyStatus.NeverSynced,
                KeyStatus.Idle,
                KeyStatus.Running,
                KeyStatus.Failed,
                KeyStatus.NeedsAttention,
                KeyStatus.Cancelled,
                KeyStatus.SignedOut {

    /** The task key. */
    TaskKey key();

    /**
     * When the key last synced successfully; empty if it never did, or if this snapshot was made
     * from a run event before the key's state was first read from the database.
     */
    Optional<Instant> lastSuccess();

    /** The state, for readers that only compare states ({@link CardOverlay#shown}, the tray). */
    Kind kind();

    /**
     * The states a card can show. The first six and {@link #SIGNED_OUT} are the kinds of the cases of {@link KeyStatus},
     * which {@link StatusTracker} publishes from runs and the database; {@link #PAUSED} and
     * {@link #OFFLINE} are shown by the window over an idle, failed or cancelled key while the user
     * paused syncing or the server cannot be reached, and {@link #CONFLICTS} over a key that would
     * otherwise show as up to date (or paused, offline) while conflicts of it wait for the user
     * ({@link CardOverlay#shown(KeyStatus)}).
     */
    enum Kind {
        NEVER_SYNCED,
        IDLE,
        RUNNING,
        FAILED,
        NEEDS_ATTENTION,
        CANCELLED,
        PAUSED,
        OFFLINE,
        SIGNED_OUT,
        CONFLICTS
    }

    /** Idle, or never synced when {@code lastSuccess} is empty. */
    static KeyStatus idle(TaskKey key, Optional<Instant> lastSuccess) {
        return lastSuccess.<KeyStatus>map(t -> new Idle(key, t)).orElseGet(() -> new NeverSynced(key));
    }

    /**
     * No successful sync of the key is known, no run is going on and the last one (if any) did not
     * fail, get cancelled or need attention.
     *
     * @param key the task key
     */
    record NeverSynced(TaskKey key) implements KeyStatus {
        public NeverSynced {
            Objects.requireNonNull(key, "key");
        }

        /** Always empty. */
        @Override
        public Optional<Instant> lastSuccess() {
            return Optional.empty();
        }

        @Override
        public Kind kind() {
            return Kind.NEVER_SYNCED;
        }
    }

    /**
     * Up to date as of the last successful sync: no run is going on and the last one did not fail, get
     * cancelled or need attention.
     *
     * @param key the task key
     * @param lastSynced when that run ended
     */
    record Idle(TaskKey key, Instant lastSynced) implements KeyStatus {
        public Idle {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastSynced, "lastSynced");
        }

        /** {@link #lastSynced()}, always present. */
        @Override
        public Optional<Instant> lastSuccess() {
            return Optional.of(lastSynced);
        }

        @Override
        public Kind kind() {
            return Kind.IDLE;
        }
    }

    /**
     * A run of the key is going on, in this process or another.
     *
     * @param key the task key
     * @param lastSuccess see {@link KeyStatus#lastSuccess()}
     * @param run the running run ({@link RunView#local()} tells whether it is this process's)
     * @param joinedBy the trigger of this window that found the run going on and joined it instead of
     *     starting one (the user's click, the timer, coming back to the window); empty when none did
     */
    record Running(TaskKey key, Optional<Instant> lastSuccess, RunView run, Optional<TaskSource> joinedBy)
            implements KeyStatus {
        public Running {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastSuccess, "lastSuccess");
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(joinedBy, "joinedBy");
        }

        /** A run joined by the user's own click ({@code true}) or by nobody of this window. */
        public Running(TaskKey key, Optional<Instant> lastSuccess, RunView run, boolean joinedByUser) {
            this(key, lastSuccess, run, joinedByUser ? Optional.of(TaskSource.MANUAL) : Optional.empty());
        }

        /** Whether the user's own click joined this run rather than starting it. */
        public boolean joinedByUser() {
            return joinedBy.equals(Optional.of(TaskSource.MANUAL));
        }

        @Override
        public Kind kind() {
            return Kind.RUNNING;
        }

        /** The same run, joined by the user's own click. */
        Running withJoinedByUser() {
            return new Running(key, lastSuccess, run, true);
        }

        /**
         * The same run, joined by {@code source}; the user's own click is kept over a timer or
         * focus join of the same run, since it is what the user is waiting for.
         */
        Running withJoinedBy(TaskSource source) {
            return joinedByUser() ? this : new Running(key, lastSuccess, run, Optional.of(source));
        }
    }

    /**
     * The key's last run failed; the user may retry, and an automatic retry may be due.
     *
     * @param key the task key
     * @param lastSuccess see {@link KeyStatus#lastSuccess()}
     * @param reason the plain reason, empty when the run recorded none
     * @param retryAt when an automatic retry is due, empty if none is scheduled
     * @param otherProcess who made the run when it was another process (e.g. a {@code leasesync sync}
     *     on the same data directory); empty when this window made it
     * @param serverWaitUntil the time before which the sync server asked not to be contacted about the key
     *     ({@code Retry-After}), while that holds; empty otherwise
     */
    record Failed(
            TaskKey key,
            Optional<Instant> lastSuccess,
            Optional<String> reason,
            Optional<Instant> retryAt,
            Optional<OtherProcess> otherProcess,
            Optional<Instant> serverWaitUntil)
            implements KeyStatus {
        public Failed {
            Objects.requireNonNull(serverWaitUntil, "serverWaitUntil");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastSuccess, "lastSuccess");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(retryAt, "retryAt");
            Objects.requireNonNull(otherProcess, "otherProcess");
        }

        /** Without a server wait. */
        public Failed(
                TaskKey key,
                Optional<Instant> lastSuccess,
                Optional<String> reason,
                Optional<Instant> retryAt,
                Optional<OtherProcess> otherProcess) {
            this(key, lastSuccess, reason, retryAt, otherProcess, Optional.empty());
        }

        /** A run of this window, without a server wait. */
        public Failed(TaskKey key, Optional<Instant> lastSuccess, Optional<String> reason, Optional<Instant> retryAt) {
            this(key, lastSuccess, reason, retryAt, Optional.empty(), Optional.empty());
        }

        @Override
        public Kind kind() {
            return Kind.FAILED;
        }
    }

    /**
     * The key's last run ended in an unknown state (fail closed): nothing runs until the user checks
     * again or discards the unconfirmed push.
     *
     * @param key the task key
     * @param lastSuccess see {@link KeyStatus#lastSuccess()}
     * @param reason the plain reason, empty when the run recorded none
     * @param unconfirmedPush the push whose outcome is unknown, from the checkpoint; empty when the
     *     checkpoint records none or cannot be read
     * @param otherProcess who made the run when it was another process; empty when this window made it
     */
    record NeedsAttention(
            TaskKey key,
            Optional<Instant> lastSuccess,
            Optional<String> reason,
            Optional<UnconfirmedPush> unconfirmedPush,
            Optional<OtherProcess> otherProcess)
            implements KeyStatus {
        public NeedsAttention {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastSuccess, "lastSuccess");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(unconfirmedPush, "unconfirmedPush");
            Objects.requireNonNull(otherProcess, "otherProcess");
        }

        /** A run of this window. */
        public NeedsAttention(
                TaskKey key,
                Optional<Instant> lastSuccess,
                Optional<String> reason,
                Optional<UnconfirmedPush> unconfirmedPush) {
            this(key, lastSuccess, reason, unconfirmedPush, Optional.empty());
        }

        @Override
        public Kind kind() {
            return Kind.NEEDS_ATTENTION;
        }
    }

    /**
     * The key's last run was cancelled (by the user, or because the account was switched).
     *
     * @param key the task key
     * @param lastSuccess see {@link KeyStatus#lastSuccess()}
     * @param reason the plain reason, empty when the run recorded none
     * @param otherProcess who made the run when it was another process; empty when this window made it
     */
    record Cancelled(
            TaskKey key, Optional<Instant> lastSuccess, Optional<String> reason, Optional<OtherProcess> otherProcess)
            implements KeyStatus {
        public Cancelled {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastSuccess, "lastSuccess");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(otherProcess, "otherProcess");
        }

        /** A run of this window. */
        public Cancelled(TaskKey key, Optional<Instant> lastSuccess, Optional<String> reason) {
            this(key, lastSuccess, reason, Optional.empty());
        }

        @Override
        public Kind kind() {
            return Kind.CANCELLED;
        }
    }

    /**
     * Who made a run that is not this window's, as far as its record tells. Immutable.
     *
     * @param program the program that ran it ({@code leasesync sync}), empty for runs recorded without one
     * @param pid its process id, from the owner id; empty if the owner id cannot be read
     * @param server the sync server it talked to, empty when not recorded
     * @param sameServer whether that is this window's server (false when unknown)
     */
    record OtherProcess(
            Optional<String> program, java.util.OptionalLong pid, Optional<String> server, boolean sameServer) {
        public OtherProcess {
            Objects.requireNonNull(program, "program");
            Objects.requireNonNull(pid, "pid");
            Objects.requireNonNull(server, "server");
        }
    }

    /**
     * A push sent but not confirmed, as recorded in the key's checkpoint: what the user needs to tell
     * what "check again" or "discard and resend" is about. Immutable.
     *
     * @param idempotencyKey the push's idempotency key
     * @param changeIds the change ids it carried, in order
     */
    record UnconfirmedPush(String idempotencyKey, List<String> changeIds) {
        public UnconfirmedPush {
            Objects.requireNonNull(idempotencyKey, "idempotencyKey");
            changeIds = List.copyOf(changeIds);
        }

        /** The in-flight push of a checkpoint, if it records one with its key. */
        static Optional<UnconfirmedPush> of(Optional<Checkpoint> checkpoint) {
            return checkpoint
                    .filter(Checkpoint::hasPushInFlight)
                    .flatMap(c -> c.idempotencyKey().map(k -> new UnconfirmedPush(k, c.pushChangeIds())));
        }
    }

    /**
     * The sync server no longer accepts the account's session (revoked, expired, the user disabled or
     * deleted): the key's last run stopped at once, nothing is retried, and the card says "Signed out —
     * sign in again". The local records and the outbox are kept; the first run after signing in again
     * pushes them.
     *
     * @param key the task key
     * @param lastSuccess see {@link KeyStatus#lastSuccess()}
     * @param reason what the run recorded, empty when nothing
     * @param otherProcess who made the run when it was another process; empty when this window made it
     */
    record SignedOut(
            TaskKey key, Optional<Instant> lastSuccess, Optional<String> reason, Optional<OtherProcess> otherProcess)
            implements KeyStatus {
        public SignedOut {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lastSuccess, "lastSuccess");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(otherProcess, "otherProcess");
        }

        @Override
        public Kind kind() {
            return Kind.SIGNED_OUT;
        }
    }
}
