package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.desktop.SignedOutGate;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/**
 * The card rules for a signed-out account, on the main view model without a stage: a real
 * coordinator on in-memory H2 whose runs for alice end signed out (as a 401 from the server makes
 * them), the window's {@link SignedOutGate} fed with its run events. The view model's UI executor
 * is one thread, as the FX thread is in the window: every call into the view model and every read
 * of a card runs on it, so a read never sees half of an update (with a direct executor the status
 * event and the gate's change updated one card from two threads at once).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignedOutCardsTest {

    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final Executor direct = Runnable::run;
    final ExecutorService ui = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-ui"));
    final ManualTime time = new ManualTime();
    final AtomicInteger started = new AtomicInteger();
    final SignedOutGate gate = new SignedOutGate();
    volatile boolean refused = true;

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        ui.shutdownNow();
        store.close();
    }

    Coordinator coordinator() {
        TaskRegistry r = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        Coordinator c = new Coordinator(
                r,
                store.runs(),
                ctx -> {
                    started.incrementAndGet();
                    return refused && ctx.key().userId().equals("alice")
                            ? RunOutcome.signedOut("401 unauthenticated: the session is not valid any more")
                            : RunOutcome.succeeded();
                },
                workers,
                new LeaseKeeper(r),
                null,
                null);
        c.addListener(gate);
        return c;
    }

    MainViewModel vm(Coordinator c) {
        MainViewModel vm = new MainViewModel(
                c,
                direct,
                ui,
                new StatusTexts(ZoneId.of("UTC")),
                List.of("alice", "bob"),
                sink -> new StatusTracker(store.runs(), c, ui, sink),
                gate,
                time);
        // what AccountsViewModel does with the gate's changes, on the UI executor
        gate.addListener(() -> ui.execute(() -> vm.setAccountSignedOut(gate.isSignedOut(vm.currentUser()))));
        vm.currentUserProperty().addListener((o, a, b) -> vm.setAccountSignedOut(gate.isSignedOut(b)));
        return vm;
    }

    /** Runs {@code read} on the UI thread, after every update queued there before it. */
    <T> T onUi(Callable<T> read) throws Exception {
        return ui.submit(read).get(20, TimeUnit.SECONDS);
    }

    void onUi(Runnable call) throws Exception {
        onUi(() -> {
            call.run();
            return null;
        });
    }

    void waitUntil(String what, BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!onUi(done::getAsBoolean)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    int runsOf(String user, Scope scope) {
        return store.history().history(new TaskKey(user, scope), 100).size();
    }

    @Test
    void oneRefusedRunSignsOutEveryCardOfTheAccountOffersSignInAndHoldsBackOnlyTheAutomaticTriggers() throws Exception {
        MainViewModel vm = onUi(() -> vm(coordinator()));
        onUi(vm::start);
        ScopeCardModel courses = vm.card(Scope.COURSE_SYNC);
        ScopeCardModel backup = vm.card(Scope.BACKUP);
        assertThat(onUi(() -> courses.signInVisibleProperty().get())).isFalse();

        onUi(() -> vm.showBanner("Signed in as alice. Syncing its data now."));
        onUi(() -> vm.syncNow(Scope.COURSE_SYNC));
        waitUntil("the run ended signed out", () -> gate.isSignedOut("alice"));
        waitUntil("the card says so", () -> courses.headlineProperty().get().equals("Signed out — sign in again"));
        assertThat(onUi(() -> courses.kindProperty().get())).isEqualTo(org.leasesync.desktop.KeyStatus.Kind.SIGNED_OUT);
        assertThat(onUi(() -> courses.signInVisibleProperty().get())).isTrue();
        assertThat(onUi(() -> courses.retryVisibleProperty().get()))
                .as("no retry: it would be refused again")
                .isFalse();
        // one session serves all of alice's cards: the one that never ran says so too
        assertThat(onUi(() -> backup.headlineProperty().get())).isEqualTo("Signed out — sign in again");
        assertThat(onUi(() -> backup.signInVisibleProperty().get())).isTrue();
        assertThat(onUi(() -> vm.bannerProperty().get()))
                .as("the sign-in's line is not true any more")
                .isEmpty();
        assertThat(onUi(() -> backup.detailProperty().get()))
                .startsWith("The sync server no longer accepts this device's session.");
        assertThat(store.history()
                        .history(new TaskKey("alice", Scope.COURSE_SYNC), 1)
                        .get(0)
                        .status())
                .contains(RunStatus.SIGNED_OUT);

        // the timer, coming back to the window and the retry after offline ask nothing for alice
        int before = started.get();
        for (TaskSource source : List.of(TaskSource.SCHEDULE, TaskSource.FOREGROUND, TaskSource.RETRY)) {
            onUi(() -> vm.backgroundTrigger(source, key -> true));
        }
        assertThat(started.get()).isEqualTo(before);
        assertThat(runsOf("alice", Scope.BACKUP)).isZero();
        assertThat(onUi(() -> backup.detailProperty().get()))
                .as("the pause's skip line is not shown on a signed-out card")
                .doesNotContain("skipped");

        // bob's session is his own: his cards are not signed out, and his timer runs
        onUi(() -> vm.switchAccount("bob"));
        waitUntil(
                "bob shown",
                () -> !vm.card(Scope.BACKUP).signInVisibleProperty().get());
        onUi(() -> vm.backgroundTrigger(TaskSource.SCHEDULE, key -> true));
        waitUntil("bob's timer runs", () -> runsOf("bob", Scope.BACKUP) == 1);
        onUi(() -> vm.switchAccount("alice"));
        waitUntil(
                "alice signed out again",
                () -> vm.card(Scope.BACKUP).signInVisibleProperty().get());

        // signed in again: the cards are as stored again, and the timer runs for alice
        refused = false;
        onUi(() -> gate.signedIn("alice"));
        assertThat(onUi(() -> backup.signInVisibleProperty().get())).isFalse();
        assertThat(onUi(() -> backup.headlineProperty().get())).isEqualTo("Not synced yet");
        onUi(() -> vm.backgroundTrigger(TaskSource.SCHEDULE, key -> true));
        waitUntil("alice's timer runs again", () -> runsOf("alice", Scope.BACKUP) == 1);
        waitUntil("courses up to date", () -> !courses.signInVisibleProperty().get());
    }
}
