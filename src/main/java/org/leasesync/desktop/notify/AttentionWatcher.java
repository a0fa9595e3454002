package org.leasesync.desktop.notify;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunEvent;
import org.leasesync.run.RunHistory;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.store.JdbcLocalEdits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the signed-in account's keys in the database — after every run of this process ends,
 * and every {@code recheck} for runs of other processes — and shows the notifications
 * {@link NotificationPolicy} asks for, while the user has them switched on.
 *
 * <p>Thread-safe: events arrive on worker threads; every look runs on the injected single-thread
 * scheduler (named {@code notifier}), which also feeds the policy.
 */
public final class AttentionWatcher implements Consumer<RunEvent>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AttentionWatcher.class);
    /** How many runs back a streak of failures is counted (a streak this long is "several"). */
    private static final int HISTORY = NotificationPolicy.FAILURES_IN_A_ROW + 7;

    private final RunHistory runs;
    private final JdbcLocalEdits edits;
    private final Supplier<String> user;
    private final NotificationPolicy policy;
    private final BooleanSupplier offline;
    private final BooleanSupplier enabled;
    private final Notifier notifier;
    private final ScheduledExecutorService thread;
    private final Duration recheck;
    private ScheduledFuture<?> periodic;
    private final Map<NotificationPolicy.Notice.Kind, Open> open =
            new java.util.EnumMap<>(NotificationPolicy.Notice.Kind.class);

    /**
     * @param user the signed-in account (null before sign-in)
     * @param offline whether the server cannot be reached now
     * @param enabled whether the user has notifications switched on
     */
    public AttentionWatcher(
            RunHistory runs,
            JdbcLocalEdits edits,
            Supplier<String> user,
            NotificationPolicy policy,
            BooleanSupplier offline,
            BooleanSupplier enabled,
            Notifier notifier,
            ScheduledExecutorService thread,
            Duration recheck) {
        this.runs = Objects.requireNonNull(runs);
        this.edits = Objects.requireNonNull(edits);
        this.user = Objects.requireNonNull(user);
        this.policy = Objects.requireNonNull(policy);
        this.offline = Objects.requireNonNull(offline);
        this.enabled = Objects.requireNonNull(enabled);
        this.notifier = Objects.requireNonNull(notifier);
        this.thread = Objects.requireNonNull(thread);
        this.recheck = Objects.requireNonNull(recheck);
    }

    /** Starts the periodic look. */
    public synchronized void start() {
        periodic = thread.scheduleWithFixedDelay(this::lookAll, 0, recheck.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Looks at every key of the user now, on the watcher's thread, instead of (or besides) the periodic
     * look of {@link #start()}: for an owner that decides itself when the database is worth a look.
     * Blocks until the look is done, at most {@code wait}.
     *
     * @return false if it was not done within {@code wait}, or the watcher's thread is shut down
     */
    public boolean lookAllAndWait(Duration wait) {
        try {
            thread.submit(this::lookAll).get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException
                | java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            log.debug("no look at every key: {}", e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void accept(RunEvent e) {
        if (e.kind() == RunEvent.Kind.FINISHED || e.kind() == RunEvent.Kind.NEEDS_ATTENTION) {
            try {
                thread.execute(() -> look(e.key()));
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                log.debug("closing; no look at {}", e.key());
            }
        }
    }

    private void lookAll() {
        String u = user.get();
        if (u == null) {
            return;
        }
        for (Scope s : Scope.values()) {
            look(new TaskKey(u, s));
        }
    }

    private void look(TaskKey key) {
        if (!key.userId().equals(user.get())) {
            return; // another account's runs (e.g. cancelled by a switch) are not the user's concern now
        }
        try {
            NotificationPolicy.Observation now = observe(key);
            withdrawWhatNoLongerHolds(now);
            for (NotificationPolicy.Notice n : policy.observe(now, offline.getAsBoolean())) {
                if (enabled.getAsBoolean()) {
                    deliver(n);
                } else {
                    log.info("notification not shown (switched off): {}", n.title());
                }
            }
        } catch (RuntimeException ex) {
            log.warn("could not check {} for notifications: {}", key, ex.getMessage());
        }
    }

    /**
     * Shows {@code n}; while a notification of the same kind is still open, as part of it (one
     * notification naming every key with that trouble). Notifier thread.
     */
    private void deliver(NotificationPolicy.Notice n) {
        Open o = open.get(n.kind());
        List<NotificationPolicy.Notice> together = new java.util.ArrayList<>();
        long replaces = 0;
        if (o != null && o.user().equals(n.key().userId()) && notifier.isOpen(o.id())) {
            o.notices().stream().filter(x -> !x.key().equals(n.key())).forEach(together::add);
            replaces = o.id();
        }
        together.add(n);
        long id = notifier.show(policy.merge(together), replaces);
        if (id != 0) {
            open.put(n.kind(), new Open(id, n.key().userId(), List.copyOf(together)));
        }
    }

    /**
     * A notification left on screen about something no longer true of {@code now}'s key (it syncs
     * again, its state is known again, its conflicts are settled, it is signed in again) is withdrawn,
     * or, when it names other keys too, shown again without this one. Notifier thread.
     */
    private void withdrawWhatNoLongerHolds(NotificationPolicy.Observation now) {
        if (now.failuresInARow() == 0) {
            withdraw(NotificationPolicy.Notice.Kind.FAILING, now.key(), "syncs again");
        }
        if (now.attention().isEmpty()) {
            withdraw(NotificationPolicy.Notice.Kind.NEEDS_ATTENTION, now.key(), "no longer needs attention");
        }
        if (now.conflicts().isEmpty()) {
            withdraw(NotificationPolicy.Notice.Kind.CONFLICT, now.key(), "has no conflict left");
        }
        if (now.signedOut().isEmpty()) {
            withdraw(NotificationPolicy.Notice.Kind.SIGNED_OUT, now.key(), "is signed in again");
        }
    }

    private void withdraw(NotificationPolicy.Notice.Kind kind, TaskKey key, String why) {
        Open o = open.get(kind);
        if (o == null || o.notices().stream().noneMatch(n -> n.key().equals(key))) {
            return;
        }
        List<NotificationPolicy.Notice> rest =
                o.notices().stream().filter(n -> !n.key().equals(key)).toList();
        if (rest.isEmpty() || !notifier.isOpen(o.id())) {
            open.remove(kind);
            notifier.withdraw(o.id());
            log.info("{} {}: its {} notification is withdrawn", key, why, kind);
            return;
        }
        long id = notifier.show(policy.merge(rest), o.id());
        if (id != 0) {
            open.put(kind, new Open(id, o.user(), rest));
        }
    }

    /** The notification of a kind that was shown last, and what it holds. */
    private record Open(long id, String user, List<NotificationPolicy.Notice> notices) {}

    /** What the database says about {@code key} now. Blocks on the database. */
    NotificationPolicy.Observation observe(TaskKey key) {
        List<RunRecord> recent = runs.history(key, HISTORY);
        int failures = 0;
        Optional<String> lastError = Optional.empty();
        for (RunRecord r : recent) {
            RunStatus st = r.status().orElse(null);
            if (st == RunStatus.RUNNING || st == RunStatus.CANCELLED) {
                continue; // neither ends nor extends a streak
            }
            if (st != RunStatus.FAILED) {
                break;
            }
            if (failures++ == 0) {
                lastError = r.error();
            }
        }
        Optional<String> attention = runs.lastRun(key)
                .filter(r -> r.status().orElse(null) == RunStatus.NEEDS_ATTENTION)
                .map(r -> r.error().orElse("")); // blank: the notification says the state is unknown
        Map<String, String> conflicts = new LinkedHashMap<>();
        for (JdbcLocalEdits.OutboxItem i : edits.outbox(key)) {
            if (i.isConflict()) {
                conflicts.put(i.changeId(), i.recordId());
            }
        }
        Optional<String> signedOut = runs.lastRun(key)
                .filter(r -> r.status().orElse(null) == RunStatus.SIGNED_OUT)
                .map(r -> r.error().orElse(""));
        return new NotificationPolicy.Observation(key, failures, lastError, attention, conflicts, signedOut);
    }

    @Override
    public synchronized void close() {
        if (periodic != null) {
            periodic.cancel(false);
        }
    }
}
