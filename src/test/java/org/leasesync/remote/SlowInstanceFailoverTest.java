package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.server.PostgresDatabases;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.PostgresTest;

/**
 * Two real reference server instances on one PostgreSQL database, the first slowed by its latency
 * fault beyond the client's read timeout: a pull is answered late there, so it goes on to the second
 * instance at once, and the slow one is avoided afterwards.
 */
@PostgresTest
@Timeout(120)
class SlowInstanceFailoverTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final HttpSettings SHORT =
            new HttpSettings(Duration.ofSeconds(1), Duration.ofMillis(700), Duration.ofSeconds(5));

    private ReferenceServer slow;
    private ReferenceServer healthy;

    @AfterEach
    void stop() {
        for (ReferenceServer s : new ReferenceServer[] {slow, healthy}) {
            if (s != null) {
                s.close();
            }
        }
    }

    @Test
    void aPullAnsweredLateByOneInstanceIsAnsweredByTheNextAndTheSlowOneIsAvoided() throws Exception {
        ServerDatabaseConfig.Postgres db = PostgresDatabases.fresh();
        ServerConfig cfg = ServerConfig.defaults().withDatabase(db).withAudit(true);
        slow = ReferenceServer.start(cfg);
        healthy = ReferenceServer.start(cfg);
        slow.faults().set(new FaultSettings(3_000, 0, 0, 0, 0));
        String token = healthy.tokenFor("alice");
        HttpSyncRemote remote = new HttpSyncRemote(
                ServerUrls.parse(slow.baseUrl() + "," + healthy.baseUrl()),
                ClientStack.HTTP,
                SHORT,
                user -> user.equals("alice") ? token : null,
                "client-slow");

        String healthyUrl = healthy.baseUrl().replaceAll("/$", "");
        assertThat(remote.currentServer().toString()).startsWith(slow.baseUrl().replaceAll("/$", ""));
        for (int i = 0; i < 3; i++) {
            assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "run-" + i).nextCursor())
                    .isNotNull();
            assertThat(remote.currentServer().toString())
                    .as("after pull %d the next call starts at the healthy one", i)
                    .startsWith(healthyUrl);
        }
    }
}
