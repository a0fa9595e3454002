package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.AccountService;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.SignInResult;
import org.leasesync.desktop.EmbeddedDemo;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.SignInRequest;
import org.leasesync.desktop.SignedOutGate;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.desktop.WindowAccounts;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerAccounts;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.SyncSettings;

/**
 * Switching between signed-in accounts on two real servers, without a stage: the view models on
 * direct executors, a real runtime (in-memory H2) and real sign-ins. The old account's run is
 * cancelled and fenced by the switch — it writes nothing more, on its server or here — and the new
 * account's runs go to its own server, recorded with that server as their origin.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AccountsViewModelTest {

    static final String PASSWORD = "correct horse battery staple";
    static final HttpSettings HTTP =
            new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20));

    @TempDir
    Path tmp;

    ReferenceServer a;
    ReferenceServer b;
    ClientRuntime runtime;
    WindowAccounts accounts;
    final Executor direct = Runnable::run;

    @BeforeEach
    void twoServers() throws Exception {
        a = ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE));
        b = ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE));
        ServerAccounts.add(a, "carol", PASSWORD);
        ServerAccounts.add(b, "dave", PASSWORD);
    }

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.close();
        }
        a.close();
        b.close();
    }

    SignInRequest request(ReferenceServer server, String user) {
        return new SignInRequest(
                ServerUrls.parse(server.baseUrl()), user, PASSWORD.toCharArray(), "test", TransportSecurity.DEFAULT);
    }

    static void waitUntil(String what, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void switchingAccountsCancelsTheOldAccountsRunWhichWritesNothingMoreAndTheNewOneSyncsWithItsOwnServer()
            throws Exception {
        AccountService service = new AccountService(tmp, Map.of(), TimeSource.system());
        SignInResult.SignedIn carol = (SignInResult.SignedIn) service.signIn(
                ServerUrls.parse(a.baseUrl()),
                "carol",
                PASSWORD.toCharArray(),
                "test",
                TransportSecurity.DEFAULT,
                HTTP);
        runtime = ClientRuntime.open(
                new ClientConfig(
                        tmp,
                        ServerUrls.parse(a.baseUrl()),
                        Map.of("carol", service.token(carol.account())),
                        Duration.ofSeconds(60),
                        HTTP,
                        SyncSettings.DEFAULT,
                        RetryPolicy.NONE,
                        TimeSource.system(),
                        Duration.ofSeconds(40),
                        "leasesync window",
                        TransportSecurity.DEFAULT),
                LocalStore.openInMemory());
        SignedOutGate gate = new SignedOutGate();
        accounts = new WindowAccounts(
                service,
                runtime,
                new EmbeddedDemo(tmp),
                HTTP,
                gate,
                List.of(new WindowAccounts.Entry(
                        "carol",
                        WindowAccounts.Kind.SIGNED_IN,
                        carol.account().servers(),
                        Optional.of(carol.account()))),
                Set.of("carol"));
        Messages m = new Messages(Locale.UK, ZoneOffset.UTC);
        MainViewModel vm = new MainViewModel(
                runtime.coordinator(),
                direct,
                direct,
                new StatusTexts(m),
                List.of("carol"),
                sink -> new StatusTracker(runtime.store().runs(), runtime.coordinator(), direct, sink),
                gate,
                TimeSource.system());
        vm.setAccountPreparer(accounts::prepare);
        AccountsViewModel avm = new AccountsViewModel(accounts, vm, direct, direct, m, key -> true);
        vm.start();

        // a second account, on another server, signed in through the window's port
        assertThat(accounts.signIn(request(b, "dave"))).isInstanceOf(SignInResult.SignedIn.class);
        vm.setAccounts(
                accounts.entries().stream().map(WindowAccounts.Entry::user).toList());
        assertThat(avm.label("dave")).isEqualTo("dave · 127.0.0.1:" + b.port());
        assertThat(runtime.serversOf("dave").toString()).isEqualTo(b.baseUrl() + "/");

        // carol's run is slow (every request of server A waits), with an edit waiting to be pushed
        TaskKey carolCourses = new TaskKey("carol", Scope.COURSE_SYNC);
        runtime.edits().addEdit(carolCourses, "course-1", "{\"title\":\"carol's\"}", false);
        a.faults().set(new FaultSettings(1500, 0, 0, 0, 0));
        a.resetStats();
        vm.syncNow(Scope.COURSE_SYNC);
        assertThat(runtime.coordinator().isRunningLocally(carolCourses)).isTrue();

        avm.switchTo("dave");
        assertThat(vm.currentUser()).isEqualTo("dave");
        waitUntil("carol's run ended", () -> !runtime.coordinator().isRunningLocally(carolCourses));
        RunRecord cancelled = runtime.store().history().lastRun(carolCourses).orElseThrow();
        assertThat(cancelled.status()).contains(RunStatus.CANCELLED);
        long pushesBefore = a.stats().pushes();
        Thread.sleep(2000); // the cancelled run's calls in flight, had they gone on
        assertThat(a.stats().pushes())
                .as("nothing of carol's reached server A after the switch")
                .isEqualTo(pushesBefore)
                .isZero();
        assertThat(runtime.edits().pendingCount(carolCourses))
                .as("carol's edit is kept for her next sync")
                .isEqualTo(1);

        // dave's keys synced (the switch counts as coming to the window), with server B
        for (Scope s : Scope.values()) {
            TaskKey dave = new TaskKey("dave", s);
            waitUntil(
                    "dave's " + s + " synced",
                    () -> runtime.store()
                                    .history()
                                    .lastRun(dave)
                                    .flatMap(RunRecord::status)
                                    .orElse(null)
                            == RunStatus.SUCCEEDED);
            assertThat(runtime.store().history().lastRun(dave).orElseThrow().origin())
                    .contains(new RunOrigin("leasesync window", b.baseUrl() + "/"));
        }
        assertThat(b.stats().requests()).isPositive();
        assertThat(cancelled.origin()).contains(new RunOrigin("leasesync window", a.baseUrl() + "/"));
        for (Scope s : Scope.values()) {
            assertThat(vm.card(s).status().key().userId())
                    .as("nothing of carol's in dave's view")
                    .isEqualTo("dave");
        }
    }
}
