package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.leasesync.server.demo.DemoData;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.PostgresTest;

/**
 * Instances that start at the same moment on an empty PostgreSQL database migrate it once, seed
 * it once and agree on the admin token, every user's token and the database id (repeated, to
 * catch the races; ClusterProcessTest does the same with real processes).
 */
@PostgresTest
class ConcurrentStartTest {

    private static final int INSTANCES = 4;

    @Test
    void instancesStartingAtOnceOnAnEmptyDatabaseAgreeOnEverythingTheyCreate() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(INSTANCES);
        try {
            for (int round = 0; round < 3; round++) {
                ServerDatabaseConfig.Postgres db = PostgresDatabases.fresh();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<ReferenceServer>> starts = new ArrayList<>();
                for (int i = 0; i < INSTANCES; i++) {
                    starts.add(pool.submit(() -> {
                        go.await();
                        return ReferenceServer.start(ServerConfig.defaults().withDatabase(db));
                    }));
                }
                go.countDown();
                List<ReferenceServer> servers = new ArrayList<>();
                try {
                    for (Future<ReferenceServer> f : starts) {
                        servers.add(f.get(60, TimeUnit.SECONDS));
                    }
                    List<String> cursors = new ArrayList<>();
                    for (ReferenceServer s : servers) {
                        // each instance makes its own sessions; every one is valid on every instance
                        TestClient first = new TestClient(servers.get(0));
                        assertThat(first.get("/v1/admin/stats", s.adminToken(), Map.of())
                                        .status())
                                .isEqualTo(200);
                        assertThat(first.get(TestClient.changesPath("bob", "backup"), s.tokenFor("bob"), Map.of())
                                        .status())
                                .isEqualTo(200);
                        String cursor = new TestClient(s)
                                .pull("alice", "backup", null)
                                .json()
                                .get("nextCursor")
                                .asText();
                        cursors.add(cursor.substring(0, cursor.indexOf(':')));
                    }
                    assertThat(cursors).as("database id").containsOnly(cursors.get(0));
                    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
                            Statement st = c.createStatement()) {
                        assertThat(count(st, "SELECT COUNT(*) FROM sync_users"))
                                .as("alice, bob, admin")
                                .isEqualTo(3);
                        assertThat(count(st, "SELECT COUNT(*) FROM sync_users WHERE is_admin"))
                                .isEqualTo(1);
                        assertThat(count(st, "SELECT COUNT(*) FROM server_identity"))
                                .isEqualTo(1);
                        assertThat(count(st, "SELECT COUNT(*) FROM sync_records"))
                                .isEqualTo(DemoData.ALICE.values().stream()
                                                .mapToInt(List::size)
                                                .sum()
                                        + DemoData.BOB.values().stream()
                                                .mapToInt(List::size)
                                                .sum());
                        assertThat(count(st, "SELECT COUNT(*) FROM instance_counters"))
                                .isEqualTo(INSTANCES);
                    }
                } finally {
                    servers.forEach(ReferenceServer::close);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long count(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
