package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.Fence;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.TaskKey;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * Upgrading a lease table of the 8-column form (client schema V9, server schema V6) to the
 * 6-column one (client V10, server V7) keeps every row's key, owner, epoch, heartbeat,
 * TTL and renewal time, reads the same {@link LeaseRecord} as before (the expiry, no longer stored,
 * is {@code renewed_at_ms + ttl_ms} for a held key and the release time for a free one — what the
 * old columns held), and leaves every fence valid: the holder releases with its old fence, the next
 * grant gets a higher epoch. On H2 and PostgreSQL, for the client's and the server's migrations.
 */
@PostgresTest
class LeaseRowUpgradeTest {

    /** The server schema's newest migration: whatever migrations come later, the upgrade lands on it. */
    private static final int LATEST_SERVER_MIGRATION = org.leasesync.server.store.Dialect.LATEST_MIGRATION;

    static final OwnerId HOLDER = new OwnerId("host-a", 4242, 17, "a1b2c3");
    static final OwnerId NEXT = new OwnerId("host-b", 99, 5, "d4e5f6");

    @Test
    void h2ClientSchemaV9ToLatest() throws Exception {
        try (HikariDataSource ds = Pools.h2("upgrade-client")) {
            upgrade(ds, SqlDialect.H2, SqlDialect.H2.clientMigrations(), "9", SqlDialect.LATEST_CLIENT_MIGRATION);
        }
    }

    @Test
    void h2ServerSchemaV6ToLatest() throws Exception {
        try (HikariDataSource ds = Pools.h2("upgrade-server")) {
            upgrade(ds, SqlDialect.H2, Dialect.H2.migrations(), "6", LATEST_SERVER_MIGRATION);
        }
    }

    @Test
    void postgresqlClientSchemaV9ToLatest() throws Exception {
        try (HikariDataSource ds = Pools.postgres(Postgres.newDatabase(), 10_000)) {
            upgrade(
                    ds,
                    SqlDialect.POSTGRESQL,
                    SqlDialect.POSTGRESQL.clientMigrations(),
                    "9",
                    SqlDialect.LATEST_CLIENT_MIGRATION);
        }
    }

    @Test
    void postgresqlServerSchemaV6ToLatest() throws Exception {
        try (HikariDataSource ds = Pools.postgres(Postgres.newDatabase(), 10_000)) {
            upgrade(ds, SqlDialect.POSTGRESQL, Dialect.POSTGRESQL.migrations(), "6", LATEST_SERVER_MIGRATION);
        }
    }

    private static void upgrade(DataSource ds, SqlDialect dialect, String[] location, String oldVersion, int latest)
            throws Exception {
        Flyway.configure()
                .dataSource(ds)
                .locations(location)
                .target(oldVersion)
                .load()
                .migrate();
        assertThat(columns(ds))
                .as("the old lease row")
                .containsExactly(
                        "task_key",
                        "owner_id",
                        "epoch",
                        "heartbeat",
                        "ttl_ms",
                        "granted_at_ms",
                        "renewed_at_ms",
                        "expires_at_ms");
        TaskKey held = TaskKey.of("alice", "backup");
        JobKey free = JobKey.of("purge");
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO lease"
                        + " (task_key, owner_id, epoch, heartbeat, ttl_ms, granted_at_ms, renewed_at_ms, expires_at_ms)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert(ps, held.asString(), HOLDER.asString(), 5, 7, 30_000, 1_000, 2_000, 32_000);
            insert(ps, free.asString(), null, 3, 4, 60_000, 100, 500, 500); // released at 500
        }

        Flyway.configure().dataSource(ds).locations(location).load().migrate();

        assertThat(columns(ds))
                .as("the new lease row")
                .containsExactly("task_key", "owner_id", "epoch", "heartbeat", "ttl_ms", "renewed_at_ms");
        assertThat(SchemaVersion.isCurrent(ds, latest)).isTrue();
        JdbcLeaseStore store =
                new JdbcLeaseStore(new DataSourceDatabase(ds, dialect, "upgraded " + String.join(",", location)));
        assertThat(store.read(held))
                .contains(new LeaseRecord(
                        held,
                        Optional.of(HOLDER),
                        5,
                        7,
                        Duration.ofSeconds(30),
                        Instant.ofEpochMilli(2_000),
                        Instant.ofEpochMilli(32_000)));
        assertThat(store.read(free))
                .contains(new LeaseRecord(
                        free,
                        Optional.empty(),
                        3,
                        4,
                        Duration.ofSeconds(60),
                        Instant.ofEpochMilli(500),
                        Instant.ofEpochMilli(500)));

        // The holder's fence from before the upgrade is still current; the next grant is above it
        Instant now = Instant.ofEpochMilli(10_000);
        assertThat(store.grantIfFree(held, NEXT, Duration.ofSeconds(30), now))
                .as("still held")
                .isEmpty();
        assertThat(store.renew(new Fence(held, HOLDER, 5), Duration.ofSeconds(30), now))
                .isTrue();
        assertThat(store.read(held).orElseThrow().expiresAt()).isEqualTo(now.plusSeconds(30));
        assertThat(store.release(new Fence(held, HOLDER, 5), now)).isTrue();
        LeaseRecord next =
                store.grantIfFree(held, NEXT, Duration.ofSeconds(30), now).orElseThrow();
        assertThat(next.epoch()).isEqualTo(6);
        assertThat(next.heartbeat()).isEqualTo(7 + 1 + 1 + 1); // renewal, release, grant
        assertThat(store.read(held)).contains(next);
        assertThat(store.grantIfFree(free, NEXT, Duration.ofSeconds(30), now)
                        .orElseThrow()
                        .epoch())
                .isEqualTo(4);
        assertThat(store.grantIfNew(JobKey.of("new-job"), NEXT, Duration.ofSeconds(30), now)
                        .orElseThrow()
                        .epoch())
                .isEqualTo(1);
    }

    private static void insert(
            PreparedStatement ps,
            String key,
            String owner,
            long epoch,
            long heartbeat,
            long ttl,
            long granted,
            long renewed,
            long expires)
            throws Exception {
        ps.setString(1, key);
        ps.setString(2, owner);
        ps.setLong(3, epoch);
        ps.setLong(4, heartbeat);
        ps.setLong(5, ttl);
        ps.setLong(6, granted);
        ps.setLong(7, renewed);
        ps.setLong(8, expires);
        ps.executeUpdate();
    }

    private static List<String> columns(DataSource ds) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT column_name FROM information_schema.columns WHERE LOWER(table_name) = 'lease'"
                                + " AND LOWER(table_schema) = LOWER(CURRENT_SCHEMA) ORDER BY ordinal_position");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1).toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }
}
