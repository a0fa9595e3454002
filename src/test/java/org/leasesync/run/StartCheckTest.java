package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/** The coordinator asks its start check with the lease granted, and a skip releases the lease and records no run. */
class StartCheckTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    final LocalStore store = LocalStore.openInMemory();
    final ManualTime time = new ManualTime();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final List<RunEvent> events = new CopyOnWriteArrayList<>();
    final AtomicInteger ran = new AtomicInteger();

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    Coordinator coordinator() {
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        Coordinator c = new Coordinator(
                registry,
                store.runs(),
                ctx -> {
                    ran.incrementAndGet();
                    return RunOutcome.succeeded();
                },
                workers,
                new LeaseKeeper(registry),
                null,
                null);
        c.addListener(events::add);
        return c;
    }

    @Test
    void aSkipReasonAnswersSkippedWithTheLeaseHeldWhileAskedAndFreeAfter() {
        Coordinator c = coordinator();
        List<Boolean> heldWhileAsked = new CopyOnWriteArrayList<>();
        c.setStartCheck(request -> {
            heldWhileAsked.add(store.leases().read(request.key()).orElseThrow().isHeld());
            return request.source() == TaskSource.SCHEDULE ? Optional.of("synced moments ago") : Optional.empty();
        });

        SubmitResult r = c.submit(KEY, TaskSource.SCHEDULE);

        assertThat(r).isEqualTo(new SubmitResult.Skipped(KEY, "synced moments ago"));
        assertThat(heldWhileAsked).containsExactly(true);
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(store.history().lastRun(KEY)).isEmpty();
        assertThat(ran).hasValue(0);
        assertThat(events).extracting(RunEvent::kind).containsExactly(RunEvent.Kind.SKIPPED);
        assertThat(events.get(0).message()).contains("synced moments ago");
    }

    @Test
    void aCheckThatDoesNotAskForATriggerIsNotCalledAndTheRunStartsWithItsGrantInOneTransaction() throws Exception {
        Coordinator c = coordinator();
        AtomicInteger asked = new AtomicInteger();
        c.setStartCheck(new StartCheck() {
            @Override
            public Optional<String> skipReason(TriggerRequest request) {
                asked.incrementAndGet();
                return Optional.of("would skip");
            }

            @Override
            public boolean asks(TriggerRequest request) {
                return request.source() == TaskSource.SCHEDULE;
            }
        });

        SubmitResult manual = c.submit(KEY, TaskSource.MANUAL);
        assertThat(manual).isInstanceOf(SubmitResult.Started.class);
        assertThat(((SubmitResult.Started) manual)
                        .handle()
                        .completion()
                        .get(30, TimeUnit.SECONDS)
                        .status())
                .isEqualTo(RunStatus.SUCCEEDED);
        assertThat(asked).hasValue(0);
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isEqualTo(new SubmitResult.Skipped(KEY, "would skip"));
        assertThat(asked).hasValue(1);
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(store.leases().read(KEY).orElseThrow().epoch()).isEqualTo(2); // the skip's grant was committed apart
    }

    @Test
    void anEmptyAnswerStartsTheRun() throws Exception {
        Coordinator c = coordinator();
        c.setStartCheck(request -> request.source() == TaskSource.SCHEDULE ? Optional.of("no") : Optional.empty());

        SubmitResult r = c.submit(KEY, TaskSource.MANUAL);

        assertThat(r).isInstanceOf(SubmitResult.Started.class);
        assertThat(((SubmitResult.Started) r)
                        .handle()
                        .completion()
                        .get(30, TimeUnit.SECONDS)
                        .status())
                .isEqualTo(RunStatus.SUCCEEDED);
        assertThat(ran).hasValue(1);
    }

    @Test
    void aCheckThatFailsReleasesTheLeaseAndRecordsNoRun() {
        Coordinator c = coordinator();
        c.setStartCheck(request -> {
            throw new StoreException("the database is gone");
        });

        assertThatThrownBy(() -> c.submit(KEY, TaskSource.SCHEDULE))
                .isInstanceOf(StoreException.class)
                .hasMessage("the database is gone");
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(store.history().lastRun(KEY)).isEmpty();
        c.setStartCheck(StartCheck.NONE);
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.Started.class);
    }
}
