package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;

/**
 * Epoch arithmetic at its boundary, against the reference server and a real H2 file: a device whose
 * lease table went back behind a fencing token near {@code Long.MAX_VALUE / 2} (where epochs that
 * doubled on each refusal used to stop) is refused once, moves one past the server's highest token,
 * and every later grant adds exactly one. A stale epoch is still refused.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EpochAtOldCapTest {

    static final TaskKey KEY = TaskKey.of("alice", "backup");
    static final long OLD_CAP = Long.MAX_VALUE / 2;

    @TempDir
    Path tmp;

    ReferenceServer server;
    ClientRuntime rt;

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
        rt = ClientRuntime.open(new ClientConfig(
                tmp.resolve("data"),
                server.baseUrl(),
                Map.of("alice", server.tokenFor("alice")),
                Duration.ofSeconds(60),
                HttpSettings.DEFAULT,
                SyncSettings.DEFAULT,
                RetryPolicy.NONE,
                TimeSource.system()));
    }

    @AfterEach
    void tearDown() {
        if (rt != null) {
            rt.close();
        }
        server.close();
    }

    @Test
    void aLeaseTableBehindATokenAtTheOldCapIsRefusedOnceThenGrowsByOne() throws Exception {
        assertThat(sync().status()).isEqualTo(RunStatus.SUCCEEDED);
        setEpoch(OLD_CAP + 5); // the server sees OLD_CAP + 6 from this client id
        assertThat(sync().status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(epoch()).isEqualTo(OLD_CAP + 6);

        restoreOlderCopy(40); // lease table and run history went back (a restored backup)
        RunResult refused = sync();
        assertThat(refused.status()).as("a stale epoch is refused").isEqualTo(RunStatus.FAILED);
        assertThat(refused.message().orElse("")).contains("raised to " + (OLD_CAP + 7));
        assertThat(epoch()).isEqualTo(OLD_CAP + 7);

        for (int i = 1; i <= 3; i++) {
            assertThat(sync().status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(epoch()).as("grant %d after the raise", i).isEqualTo(OLD_CAP + 7 + i);
        }
    }

    @Test
    void theNextEpochIsOnePastTheServersHighestTokenAndSaturatesAtTheTop() {
        assertThat(refusal(40, OLD_CAP).nextEpoch()).isEqualTo(OLD_CAP + 1);
        assertThat(refusal(OLD_CAP, OLD_CAP).nextEpoch()).isEqualTo(OLD_CAP + 1);
        assertThat(refusal(OLD_CAP + 9, OLD_CAP).nextEpoch())
                .as("never below the run's own epoch")
                .isEqualTo(OLD_CAP + 10);
        assertThat(refusal(5, Long.MAX_VALUE - 1).nextEpoch()).isEqualTo(Long.MAX_VALUE);
        assertThat(refusal(5, Long.MAX_VALUE).nextEpoch()).isEqualTo(Long.MAX_VALUE);
        // a server that does not report its highest token: a fixed additive step, no doubling
        assertThat(refusal(OLD_CAP, -1).nextEpoch()).isEqualTo(OLD_CAP + NewerFencingTokenException.UNREPORTED_STEP);
        assertThat(refusal(Long.MAX_VALUE - 3, -1).nextEpoch()).isEqualTo(Long.MAX_VALUE);
        assertThat(refusal(7, -1).nextEpoch()).isEqualTo(7 + NewerFencingTokenException.UNREPORTED_STEP);
    }

    private static NewerFencingTokenException refusal(long epoch, long highest) {
        RemoteException e = new RemoteException(
                RemoteException.Kind.HTTP, 409, "stale_fencing_token", "", -1, "refused", "refused", "", highest, null);
        assertThat(e.highestFencingToken()).isEqualTo(highest < 0 ? OptionalLong.empty() : OptionalLong.of(highest));
        return new NewerFencingTokenException(epoch, e);
    }

    private RunResult sync() throws Exception {
        SubmitResult r = rt.coordinator().submit(TriggerRequest.of(KEY, TaskSource.MANUAL));
        return ((SubmitResult.Started) r).handle().completion().get(60, TimeUnit.SECONDS);
    }

    private long epoch() {
        return rt.registry().lease(KEY).orElseThrow().epoch();
    }

    private void restoreOlderCopy(long epoch) throws Exception {
        try (Connection c = rt.store().database().dataSource().getConnection()) {
            for (String table : java.util.List.of("run_trigger", "run_stage", "run_origin", "checkpoint", "run")) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table)) {
                    ps.executeUpdate();
                }
            }
        }
        setEpoch(epoch);
    }

    private void setEpoch(long epoch) throws Exception {
        try (Connection c = rt.store().database().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE lease SET epoch = ? WHERE task_key = ?")) {
            ps.setLong(1, epoch);
            ps.setString(2, KEY.asString());
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }
}
