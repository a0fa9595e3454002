package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.leasesync.store.SchemaVersion;

/** The server's database skips Flyway when current; the version it compares with follows the migration files. */
class ServerSchemaVersionTest {

    @Test
    void latestMigrationIsTheHighestMigrationFlywayFindsForBothVendors() {
        for (Dialect d : Dialect.values()) {
            JdbcDataSource empty = new JdbcDataSource();
            empty.setURL("jdbc:h2:mem:server-schema-version-" + d);
            empty.setUser("sa");
            int highest = Arrays.stream(Flyway.configure()
                            .dataSource(empty)
                            .locations(d.migrations())
                            .load()
                            .info()
                            .all())
                    .mapToInt(m -> Integer.parseInt(m.getVersion().getVersion()))
                    .max()
                    .orElse(-1);
            assertThat(highest).as(String.join(",", d.migrations())).isEqualTo(Dialect.LATEST_MIGRATION);
        }
    }

    @Test
    void aMigratedServerDatabaseIsCurrentAndANewOneIsNot() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:server-schema-version-migrated;DB_CLOSE_DELAY=-1");
        ds.setUser("sa");
        assertThat(SchemaVersion.isCurrent(ds, Dialect.LATEST_MIGRATION)).isFalse();
        Flyway.configure()
                .dataSource(ds)
                .locations(Dialect.H2.migrations())
                .load()
                .migrate();
        assertThat(SchemaVersion.isCurrent(ds, Dialect.LATEST_MIGRATION)).isTrue();
    }
}
