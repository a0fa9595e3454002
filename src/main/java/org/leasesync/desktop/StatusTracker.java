package org.leasesync.desktop;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunEvent;
import org.leasesync.run.RunHistory;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.RunView;
import org.leasesync.run.TaskSource;

/**
 * Turns coordinator events and stored runs into {@link KeyStatus} snapshots for the signed-in
 * user and hands them to the UI through an injected executor ({@code Platform::runLater} in the
 * app, direct in tests). Snapshots of any other user are never published (invariant 8, accounts are
 * isolated: docs/architecture.md).
 *
 * <p>Thread-safe: events arrive on worker threads, refreshes on the timer thread.
 */
public final class StatusTracker implements Consumer<RunEvent> {

    private final RunHistory runs;
    private final Coordinator coordinator;
    private final Executor ui;
    private final Consumer<KeyStatus> sink;
    private final Map<TaskKey, KeyStatus> latest = new ConcurrentHashMap<>();
    /**
     * Events published per key, and the lock under which an event's state and a refresh's read are
     * published: a refresh publishes only if no event came since it began reading ({@link #publishRead}).
     */
    private final Map<TaskKey, Long> events = new ConcurrentHashMap<>();

    private final Object publishing = new Object();
    private final Optional<String> selfOwner;
    private final Optional<java.util.function.Function<TaskKey, RunOrigin>> self;
    private volatile String user;

    /** Without knowing this process: a stored run is never marked as another process's. */
    public StatusTracker(RunHistory runs, Coordinator coordinator, Executor ui, Consumer<KeyStatus> sink) {
        this(runs, coordinator, ui, sink, Optional.empty(), Optional.empty());
    }

    /**
     * @param selfOwner this process's owner id as stored ({@code OwnerId.asString()}): a stored run of
     *     any other owner is shown as another process's ({@link KeyStatus.OtherProcess})
     * @param self this process's origin: its server tells whether the other process used the same one
     */
    public StatusTracker(
            RunHistory runs,
            Coordinator coordinator,
            Executor ui,
            Consumer<KeyStatus> sink,
            String selfOwner,
            RunOrigin self) {
        this(runs, coordinator, ui, sink, selfOwner, key -> self);
    }

    /**
     * @param selfOwner this process's owner id as stored
     * @param self this process's origin for a key: its server is the key's account's (accounts on
     *     different servers), which tells whether another process used the same one
     */
    public StatusTracker(
            RunHistory runs,
            Coordinator coordinator,
            Executor ui,
            Consumer<KeyStatus> sink,
            String selfOwner,
            java.util.function.Function<TaskKey, RunOrigin> self) {
        this(runs, coordinator, ui, sink, Optional.of(selfOwner), Optional.of(self));
    }

    private StatusTracker(
            RunHistory runs,
            Coordinator coordinator,
            Executor ui,
            Consumer<KeyStatus> sink,
            Optional<String> selfOwner,
            Optional<java.util.function.Function<TaskKey, RunOrigin>> self) {
        this.runs = Objects.requireNonNull(runs);
        this.coordinator = Objects.requireNonNull(coordinator);
        this.ui = Objects.requireNonNull(ui);
        this.sink = Objects.requireNonNull(sink);
        this.selfOwner = selfOwner;
        this.self = self;
    }

    /** Switches the user whose keys are published, and publishes their current state. Blocks on the database. */
    public void setUser(String userId) {
        this.user = userId;
        refreshAll();
    }

    /** The signed-in user. */
    public String user() {
        return user;
    }

    @Override
    public void accept(RunEvent e) {
        TaskKey key = e.key();
        KeyStatus before = latest.get(key);
        KeyStatus next = switch (e.kind()) {
            case JOINED -> e.run().map(r -> joined(key, r, before, e.source())).orElse(null);
            case STARTED, STAGE, PROGRESS, FOLLOW_UP_QUEUED ->
                e.run().map(r -> running(key, r, before)).orElse(null);
            case FINISHED -> e.result().map(r -> finished(key, r, before)).orElse(null);
            case NEEDS_ATTENTION -> needsAttention(key, lastSuccess(before), e.message(), Optional.empty());
            case SKIPPED -> null;
        };
        synchronized (publishing) {
            events.merge(key, 1L, Long::sum);
            if (next != null) {
                publish(next);
            }
        }
        if (next == null && e.kind() == RunEvent.Kind.SKIPPED) {
            refresh(key);
        }
    }

    /** The user's own click joined {@code run}: show "your request joined it". */
    public void userJoined(TaskKey key, RunView run) {
        KeyStatus joined = running(key, run, latest.get(key)).withJoinedByUser();
        synchronized (publishing) {
            events.merge(key, 1L, Long::sum);
            publish(joined);
        }
    }

    /** Re-reads every key of the signed-in user from the database (runs of other processes included). */
    public void refreshAll() {
        String u = user;
        if (u == null) {
            return;
        }
        for (Scope s : Scope.values()) {
            refresh(new TaskKey(u, s));
        }
    }

    /** Re-reads one key; a key running in this process is left to its events. Blocks on the database. */
    public void refresh(TaskKey key) {
        long eventsBefore = events.getOrDefault(key, 0L);
        if (coordinator.isRunningLocally(key)) {
            return;
        }
        Optional<Instant> lastSuccess = runs.lastSucceeded(key).flatMap(RunRecord::endedAt);
        Optional<RunView> running = coordinator.runningRun(key);
        if (running.isPresent()) {
            publishRead(eventsBefore, running(key, running.get(), latest.get(key)));
            return;
        }
        Optional<RunRecord> last = runs.lastRun(key);
        KeyStatus s;
        if (last.isEmpty() || last.get().status().isEmpty()) {
            s = KeyStatus.idle(key, lastSuccess);
        } else {
            RunRecord r = last.get();
            s = switch (r.status().get()) {
                case FAILED ->
                    new KeyStatus.Failed(
                            key,
                            lastSuccess,
                            r.error(),
                            coordinator.nextRetryAt(key),
                            otherProcess(r),
                            coordinator.serverWaitUntil(key));
                case NEEDS_ATTENTION -> needsAttention(key, lastSuccess, r.error(), otherProcess(r));
                case CANCELLED -> new KeyStatus.Cancelled(key, lastSuccess, r.error(), otherProcess(r));
                case SIGNED_OUT -> new KeyStatus.SignedOut(key, lastSuccess, r.error(), otherProcess(r));
                default -> KeyStatus.idle(key, lastSuccess);
            };
        }
        publishRead(eventsBefore, s);
    }

    /**
     * Publishes what {@link #refresh} read, unless an event of the key was published since the read
     * began: a run of this process that started meanwhile was read as a running row without its local
     * handle ("running in another leasesync process"), or a run that finished meanwhile as still
     * running, and the event's state is the newer one.
     */
    private void publishRead(long eventsBefore, KeyStatus s) {
        synchronized (publishing) {
            if (events.getOrDefault(s.key(), 0L) == eventsBefore) {
                publish(s);
            }
        }
    }

    /** Who made {@code r}, when it is not this process (an owner id other than this process's). */
    private Optional<KeyStatus.OtherProcess> otherProcess(RunRecord r) {
        if (selfOwner.isEmpty() || selfOwner.get().equals(r.owner())) {
            return Optional.empty();
        }
        java.util.OptionalLong pid;
        try {
            pid = java.util.OptionalLong.of(
                    org.leasesync.lease.OwnerId.parse(r.owner()).pid());
        } catch (IllegalArgumentException e) {
            pid = java.util.OptionalLong.empty();
        }
        Optional<String> server = r.origin().map(RunOrigin::server);
        boolean sameServer =
                server.isPresent() && self.map(f -> f.apply(r.key()).server()).equals(server);
        return Optional.of(new KeyStatus.OtherProcess(r.origin().map(RunOrigin::program), pid, server, sameServer));
    }

    /** The last snapshot of a key, if any. */
    public Optional<KeyStatus> latest(TaskKey key) {
        return Optional.ofNullable(latest.get(key));
    }

    private KeyStatus.Running running(TaskKey key, RunView r, KeyStatus before) {
        Optional<TaskSource> joinedBy =
                before instanceof KeyStatus.Running b && b.run().runId().equals(r.runId())
                        ? b.joinedBy()
                        : Optional.empty();
        return new KeyStatus.Running(key, lastSuccess(before), r, joinedBy);
    }

    /**
     * A trigger joined the running run: a timer or focus trigger says so on the card as the user's
     * click does (the click's own notice comes through {@link #userJoined}); other joins (a retry,
     * a recovery) change nothing the user asked for.
     */
    private KeyStatus.Running joined(TaskKey key, RunView r, KeyStatus before, Optional<TaskSource> source) {
        KeyStatus.Running now = running(key, r, before);
        return source.filter(s -> s == TaskSource.SCHEDULE || s == TaskSource.FOREGROUND)
                .map(now::withJoinedBy)
                .orElse(now);
    }

    private KeyStatus finished(TaskKey key, RunResult r, KeyStatus before) {
        Optional<Instant> lastSuccess =
                r.status() == RunStatus.SUCCEEDED ? Optional.of(r.endedAt()) : lastSuccess(before);
        return switch (r.status()) {
            case SUCCEEDED -> KeyStatus.idle(key, lastSuccess);
            case FAILED ->
                new KeyStatus.Failed(
                        key,
                        lastSuccess,
                        r.message(),
                        coordinator.nextRetryAt(key),
                        Optional.empty(),
                        coordinator.serverWaitUntil(key));
            case NEEDS_ATTENTION -> needsAttention(key, lastSuccess, r.message(), Optional.empty());
            case SIGNED_OUT -> new KeyStatus.SignedOut(key, lastSuccess, r.message(), Optional.empty());
            default -> new KeyStatus.Cancelled(key, lastSuccess, r.message());
        };
    }

    /** Needs attention, with the unconfirmed push from the checkpoint (left out if it cannot be read). */
    private KeyStatus needsAttention(
            TaskKey key,
            Optional<Instant> lastSuccess,
            Optional<String> reason,
            Optional<KeyStatus.OtherProcess> other) {
        Optional<KeyStatus.UnconfirmedPush> push;
        try {
            push = KeyStatus.UnconfirmedPush.of(runs.checkpoint(key));
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(StatusTracker.class)
                    .warn("could not read the checkpoint of {}: {}", key, e.getMessage());
            push = Optional.empty();
        }
        return new KeyStatus.NeedsAttention(key, lastSuccess, reason, push, other);
    }

    private Optional<Instant> lastSuccess(KeyStatus before) {
        return before == null ? Optional.empty() : before.lastSuccess();
    }

    private void publish(KeyStatus s) {
        latest.put(s.key(), s);
        if (s.key().userId().equals(user)) {
            ui.execute(() -> sink.accept(s));
        }
    }
}
