package org.leasesync.desktop.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.desktop.Messages;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/**
 * A notification left on screen is withdrawn once what it says is no longer true of its key, for
 * every kind: a real coordinator on in-memory H2 records the runs, the real outbox holds the
 * conflict, the watcher looks at them every 20 ms and a recording notifier stands for the bus.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AttentionWatcherTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    final ManualTime time = new ManualTime();
    final JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), time);
    final AtomicReference<RunOutcome> next = new AtomicReference<>(RunOutcome.succeeded());
    final Recorder notifier = new Recorder();
    Coordinator coordinator;
    AttentionWatcher watcher;

    /** The notification service: what is on screen, by id. */
    static final class Recorder implements Notifier {
        final AtomicLong ids = new AtomicLong();
        final Map<Long, NotificationPolicy.Notice> open = new ConcurrentHashMap<>();
        final List<NotificationPolicy.Notice> shown = new CopyOnWriteArrayList<>();
        final List<Long> withdrawn = new CopyOnWriteArrayList<>();

        @Override
        public boolean available() {
            return true;
        }

        @Override
        public long show(NotificationPolicy.Notice notice, long replaces) {
            long id = replaces != 0 && open.containsKey(replaces) ? replaces : ids.incrementAndGet();
            open.put(id, notice);
            shown.add(notice);
            return id;
        }

        @Override
        public boolean isOpen(long id) {
            return open.containsKey(id);
        }

        @Override
        public void withdraw(long id) {
            if (open.remove(id) != null) {
                withdrawn.add(id);
            }
        }

        @Override
        public void close() {}
    }

    void start() {
        TaskRegistry r = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        coordinator = new Coordinator(r, store.runs(), ctx -> next.get(), workers, new LeaseKeeper(r), null, null);
        watcher = new AttentionWatcher(
                store.runs(),
                edits,
                () -> "alice",
                new NotificationPolicy(new Messages(Locale.UK, ZoneId.of("UTC"))),
                () -> false,
                () -> true,
                notifier,
                thread,
                Duration.ofMillis(20));
        coordinator.addListener(watcher);
        watcher.start();
    }

    @AfterEach
    void tearDown() {
        if (watcher != null) {
            watcher.close();
        }
        thread.shutdownNow();
        workers.shutdownNow();
        store.close();
    }

    void run(RunOutcome outcome, RunStatus expected, boolean discardUnconfirmed) throws InterruptedException {
        next.set(outcome);
        int before = store.runs().history(ALICE, 100).size();
        coordinator.submit(new TriggerRequest(ALICE, TaskSource.MANUAL, false, false, discardUnconfirmed));
        waitUntil("a run " + expected, () -> {
            var h = store.runs().history(ALICE, 100);
            return h.size() > before && h.get(0).status().orElse(null) == expected;
        });
    }

    static void waitUntil(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    NotificationPolicy.Notice onlyOpen(NotificationPolicy.Notice.Kind kind) throws InterruptedException {
        waitUntil(
                "a " + kind + " notification on screen",
                () -> notifier.open.values().stream().anyMatch(n -> n.kind() == kind));
        return notifier.open.values().stream()
                .filter(n -> n.kind() == kind)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aSignedOutNotificationIsWithdrawnOnceTheKeySyncsAgain() throws Exception {
        start();
        run(RunOutcome.signedOut("the server refused the token"), RunStatus.SIGNED_OUT, false);
        onlyOpen(NotificationPolicy.Notice.Kind.SIGNED_OUT);
        run(RunOutcome.succeeded(), RunStatus.SUCCEEDED, false);
        waitUntil("withdrawn", () -> notifier.open.isEmpty());
        assertThat(notifier.withdrawn).hasSize(1);
    }

    @Test
    void aNeedsAttentionNotificationIsWithdrawnOnceTheStateIsKnownAgain() throws Exception {
        start();
        run(RunOutcome.needsAttention("the push's result is unknown"), RunStatus.NEEDS_ATTENTION, false);
        onlyOpen(NotificationPolicy.Notice.Kind.NEEDS_ATTENTION);
        Thread.sleep(100);
        assertThat(notifier.withdrawn).as("still true: stays").isEmpty();
        run(RunOutcome.succeeded(), RunStatus.SUCCEEDED, true);
        waitUntil("withdrawn", () -> notifier.open.isEmpty());
        assertThat(notifier.withdrawn).hasSize(1);
    }

    @Test
    void aConflictNotificationIsWithdrawnOnceTheConflictIsSettled() throws Exception {
        start();
        run(RunOutcome.succeeded(), RunStatus.SUCCEEDED, false);
        Thread.sleep(100); // the first look knows there are no conflicts
        assertThat(edits.saveEdit(ALICE, "c1", "{\"title\":\"mine\"}", false, OptionalLong.of(3))
                        .conflict())
                .isTrue();
        NotificationPolicy.Notice n = onlyOpen(NotificationPolicy.Notice.Kind.CONFLICT);
        assertThat(n.key()).isEqualTo(ALICE);
        String changeId = edits.outbox(ALICE).stream()
                .filter(JdbcLocalEdits.OutboxItem::isConflict)
                .findFirst()
                .orElseThrow()
                .changeId();
        assertThat(edits.keepMine(ALICE, changeId)).isTrue();
        waitUntil("withdrawn", () -> notifier.open.isEmpty());
        assertThat(notifier.withdrawn).hasSize(1);
    }
}
