package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.ManualTime;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * The documented lease table ({@code lease-table-h2.sql}, {@code lease-table-postgresql.sql}) is the
 * client schema's lease table, column for column, and is all a foreign schema needs for the lease
 * store and the guard to run over its own pool ({@link DataSourceDatabase}), with job keys.
 */
@PostgresTest
class LeaseTableDdlTest {

    static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void theH2DdlIsTheClientSchemasLeaseTableAndRunsTheRegistryOverAForeignPool() throws Exception {
        try (Database migrated = Database.openInMemory();
                HikariDataSource foreign = Pools.h2("foreign-schema")) {
            Pools.execute(foreign, JdbcLeaseStore.leaseTableSql(SqlDialect.H2));
            assertThat(leaseTable(foreign))
                    .isEqualTo(leaseTable(migrated.dataSource()))
                    .isNotEmpty();
            jobLeasesWork(new DataSourceDatabase(foreign, SqlDialect.H2, "H2 foreign schema"));
        }
    }

    @Test
    void thePostgresqlDdlIsTheClientSchemasLeaseTableAndRunsTheRegistryOverAForeignPool() throws Exception {
        Postgres.Db client = Postgres.newDatabase();
        Postgres.Db server = Postgres.newDatabase();
        try (Database migrated = Database.open(
                        client.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + client.name(), 2);
                HikariDataSource foreign = Pools.postgres(server, 10_000)) {
            Pools.execute(foreign, JdbcLeaseStore.leaseTableSql(SqlDialect.POSTGRESQL));
            assertThat(leaseTable(foreign))
                    .isEqualTo(leaseTable(migrated.dataSource()))
                    .isNotEmpty();
            jobLeasesWork(new DataSourceDatabase(foreign, SqlDialect.POSTGRESQL, "PostgreSQL " + server.name()));
        }
    }

    @Test
    void theSyncServersMigrationsCreateTheSameLeaseTableOnBothVendors() throws Exception {
        // The server's V5__jobs.sql copies the DDL for its jobs' leases: it must not drift from it.
        try (Database client = Database.openInMemory();
                HikariDataSource server = Pools.h2("server-schema")) {
            org.flywaydb.core.Flyway.configure()
                    .dataSource(server)
                    .locations(Dialect.H2.migrations())
                    .load()
                    .migrate();
            assertThat(leaseTable(server)).isEqualTo(leaseTable(client.dataSource()));
        }
        Postgres.Db client = Postgres.newDatabase();
        Postgres.Db serverDb = Postgres.newDatabase();
        try (Database migrated = Database.open(
                        client.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + client.name(), 2);
                HikariDataSource server = Pools.postgres(serverDb, 10_000)) {
            org.flywaydb.core.Flyway.configure()
                    .dataSource(server)
                    .locations(Dialect.POSTGRESQL.migrations())
                    .load()
                    .migrate();
            assertThat(leaseTable(server)).isEqualTo(leaseTable(migrated.dataSource()));
        }
    }

    @Test
    void aForeignDatabaseNeedsADialectAndADescription() {
        try (HikariDataSource ds = Pools.h2("args")) {
            assertThatThrownBy(() -> new DataSourceDatabase(ds, null, "x"))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("dialect");
            assertThatThrownBy(() -> new DataSourceDatabase(ds, SqlDialect.H2, " "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("description");
        }
    }

    /** Two server instances sharing the foreign schema run one job at a time, fenced. */
    private static void jobLeasesWork(DataSourceDatabase db) {
        ManualTime time = new ManualTime();
        JdbcLeaseStore leases = new JdbcLeaseStore(db);
        JdbcGuard guard = new JdbcGuard(db);
        TaskRegistry one = new TaskRegistry(
                leases, new OwnerId("server-1", 10, 1, "a1"), TTL, time, OwnerLiveness.neverProvable());
        TaskRegistry two = new TaskRegistry(
                leases, new OwnerId("server-2", 10, 1, "b2"), TTL, time, OwnerLiveness.neverProvable());
        JobKey expire = JobKey.of("expire-idempotency-keys");
        JobKey prune = JobKey.of("prune-audit-log");

        HeldLease first = one.tryAcquire(expire).orElseThrow();
        assertThat(two.tryAcquire(expire)).isEmpty();
        HeldLease other = two.tryAcquire(prune).orElseThrow();
        Integer written = guard.inTransaction(first.fence(), "run " + expire, c -> 1);
        assertThat(written).isEqualTo(1);
        time.elapse(TTL.dividedBy(2)); // server 1 stops renewing; server 2 renews its job
        assertThat(two.renew(other)).isTrue();
        time.elapse(TTL.dividedBy(2));
        HeldLease second = two.tryAcquire(expire).orElseThrow();
        assertThat(second.fence().epoch()).isEqualTo(2);
        assertThatThrownBy(() -> guard.inTransaction(first.fence(), "late write of " + expire, c -> 1))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("job:expire-idempotency-keys");
        assertThat(two.renew(other)).isTrue();
        assertThat(two.release(second)).isTrue();
        assertThat(one.leases())
                .extracting(r -> r.key().asString())
                .containsExactly("job:expire-idempotency-keys", "job:prune-audit-log");
    }

    /** The lease table's columns (name, type, size, nullability) and primary key, as the driver reports them. */
    private static List<String> leaseTable(DataSource ds) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            String table = md.storesUpperCaseIdentifiers() ? "LEASE" : "lease";
            try (ResultSet rs = md.getColumns(null, null, table, null)) {
                while (rs.next()) {
                    out.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT) + " " + rs.getString("TYPE_NAME")
                            + "(" + rs.getInt("COLUMN_SIZE") + ") "
                            + (rs.getInt("NULLABLE") == DatabaseMetaData.columnNullable ? "null" : "not null"));
                }
            }
            try (ResultSet rs = md.getPrimaryKeys(null, null, table)) {
                while (rs.next()) {
                    out.add("primary key " + rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                }
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM lease")) {
                rs.next();
                out.add("rows " + rs.getInt(1));
            }
        }
        return out;
    }
}
