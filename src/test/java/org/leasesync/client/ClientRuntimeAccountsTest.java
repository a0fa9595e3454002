package org.leasesync.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.SyncSettings;

/**
 * One runtime, accounts on two real servers ({@link ClientRuntime#useAccount}): each user's runs go
 * to its own server with its own token, a run keeps the server it started with when its user is
 * moved meanwhile, and a forgotten account's requests carry no token.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientRuntimeAccountsTest {

    static final HttpSettings HTTP =
            new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20));

    @TempDir
    java.nio.file.Path tmp;

    ReferenceServer a;
    ReferenceServer b;
    ClientRuntime runtime;

    @BeforeEach
    void start() {
        a = ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE));
        b = ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE));
        runtime = ClientRuntime.open(
                new ClientConfig(
                        tmp,
                        ServerUrls.parse(a.baseUrl()),
                        Map.of("carol", a.tokenFor("carol")),
                        Duration.ofSeconds(60),
                        HTTP,
                        SyncSettings.DEFAULT,
                        RetryPolicy.NONE,
                        TimeSource.system(),
                        Duration.ofSeconds(40),
                        "leasesync window",
                        TransportSecurity.DEFAULT),
                LocalStore.openInMemory());
    }

    @AfterEach
    void stop() {
        runtime.close();
        a.close();
        b.close();
    }

    RunResult sync(TaskKey key) throws Exception {
        SubmitResult r = runtime.coordinator().submit(TriggerRequest.of(key, TaskSource.MANUAL));
        return ((SubmitResult.Started) r).handle().completion().get(30, TimeUnit.SECONDS);
    }

    @Test
    void eachAccountSyncsWithItsOwnServerAndARunKeepsTheServerItStartedWith() throws Exception {
        runtime.useAccount(
                "dave", ServerUrls.parse(b.baseUrl()), TransportSecurity.DEFAULT, Optional.of(b.tokenFor("dave")));
        assertThat(sync(TaskKey.of("dave", "course_sync")).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(sync(TaskKey.of("carol", "course_sync")).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(runtime.serversOf("dave")).isEqualTo(ServerUrls.parse(b.baseUrl()));
        assertThat(runtime.serversOf("carol")).isEqualTo(runtime.config().servers());
        assertThat(runtime.originOf(TaskKey.of("dave", "backup")).server()).isEqualTo(b.baseUrl() + "/");

        // carol moves to server B while a run of hers is on its way with A: that run stays with A
        TaskKey carol = TaskKey.of("carol", "message_sync");
        runtime.edits().addEdit(carol, "m-1", "{\"text\":\"hello\"}", false);
        a.faults().set(new FaultSettings(800, 0, 0, 0, 0));
        SubmitResult started = runtime.coordinator().submit(TriggerRequest.of(carol, TaskSource.MANUAL));
        Thread.sleep(300); // its first request is on its way to A
        b.resetStats();
        runtime.useAccount(
                "carol", ServerUrls.parse(b.baseUrl()), TransportSecurity.DEFAULT, Optional.of(b.tokenFor("carol")));
        RunResult r = ((SubmitResult.Started) started).handle().completion().get(30, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(b.stats().requests()).as("no request of that run went to B").isZero();
        assertThat(a.stats().pushes())
                .as("its edit went to A, where the run pulled")
                .isEqualTo(1);
        a.faults().clear();

        assertThat(sync(TaskKey.of("carol", "backup")).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(b.stats().requests()).as("the next run goes to B").isPositive();

        runtime.forgetAccount("dave");
        assertThat(sync(TaskKey.of("dave", "backup")).status())
                .as("no token any more")
                .isEqualTo(RunStatus.SIGNED_OUT);
    }

    @Test
    void plainHttpToAnotherMachineIsRefusedForAnAccountUnlessItAllowsIt() {
        assertThatThrownBy(() -> runtime.useAccount(
                        "eve",
                        ServerUrls.parse("http://sync.example.org/"),
                        TransportSecurity.DEFAULT,
                        Optional.of("t")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plain http:// to another machine");
        runtime.useAccount(
                "eve",
                ServerUrls.parse("http://sync.example.org/"),
                TransportSecurity.load(Optional.empty(), true),
                Optional.of("t"));
        assertThat(runtime.serversOf("eve")).isEqualTo(ServerUrls.parse("http://sync.example.org/"));
    }
}
