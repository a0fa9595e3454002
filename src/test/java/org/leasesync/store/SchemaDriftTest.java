package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * The two vendors' migrations make one schema: after all of them ran, H2 and PostgreSQL have the
 * same tables, the same columns in the same order with the same kind of type, size and nullability,
 * the same primary keys and the same unique indexes (by their columns). Type names differ by vendor
 * (H2's {@code CHARACTER LARGE OBJECT} is PostgreSQL's {@code text}), so the comparison is by JDBC
 * type family. A migration written for one vendor and forgotten, or written differently, for the
 * other fails here.
 */
@PostgresTest
class SchemaDriftTest {

    @Test
    void theClientsMigrationsMakeTheSameSchemaOnH2AndOnPostgresql() throws Exception {
        Postgres.Db pg = Postgres.newDatabase();
        try (Database h2 = Database.openInMemory();
                Database postgres =
                        Database.open(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + pg.name(), 2)) {
            Map<String, List<String>> onH2 = schema(h2.dataSource());
            assertThat(onH2).containsKeys("lease", "run", "checkpoint", "outbox");
            // The one difference, kept: the comma-separated change ids of a push batch are TEXT on
            // PostgreSQL. A batch holds at most 1,000 ids of at most 64 characters (65,000 with the
            // commas), within both; changing an applied migration would break its checksum.
            assertThat(drift(onH2, schema(postgres.dataSource())))
                    .as("H2 against PostgreSQL")
                    .containsExactly(
                            "checkpoint: only on H2: push_change_ids varchar(100000)",
                            "checkpoint: only on PostgreSQL: push_change_ids text");
        }
    }

    @Test
    void theServersMigrationsMakeTheSameSchemaOnH2AndOnPostgresql() throws Exception {
        Postgres.Db pg = Postgres.newDatabase();
        try (HikariDataSource h2 = Pools.h2("server-drift");
                HikariDataSource postgres = Pools.postgres(pg, 10_000)) {
            Flyway.configure()
                    .dataSource(h2)
                    .locations(Dialect.H2.migrations())
                    .load()
                    .migrate();
            Flyway.configure()
                    .dataSource(postgres)
                    .locations(Dialect.POSTGRESQL.migrations())
                    .load()
                    .migrate();
            Map<String, List<String>> onH2 = schema(h2);
            assertThat(onH2).containsKeys("lease", "sync_records", "idempotency_keys");
            assertThat(drift(onH2, schema(postgres)))
                    .as("H2 against PostgreSQL")
                    .isEmpty();
        }
    }

    /**
     * Every table of the default schema but Flyway's history: its columns (name, type family, size
     * where it bounds the value, nullability) in order, its primary key and its unique indexes.
     */
    static Map<String, List<String>> schema(DataSource ds) throws Exception {
        Map<String, List<String>> tables = new TreeMap<>();
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            String schema = c.getSchema();
            List<String> names = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, schema, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    names.add(rs.getString("TABLE_NAME"));
                }
            }
            for (String table : names) {
                String name = table.toLowerCase(Locale.ROOT);
                if (name.equals("flyway_schema_history")) {
                    continue;
                }
                List<String> out = new ArrayList<>();
                try (ResultSet rs = md.getColumns(null, schema, table, null)) {
                    while (rs.next()) {
                        out.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT) + " "
                                + family(rs.getInt("DATA_TYPE"), rs.getString("TYPE_NAME"), rs.getInt("COLUMN_SIZE"))
                                + (rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls ? " not null" : ""));
                    }
                }
                TreeSet<String> primaryKey = new TreeSet<>();
                try (ResultSet rs = md.getPrimaryKeys(null, schema, table)) {
                    while (rs.next()) {
                        primaryKey.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                    }
                }
                out.add("primary key " + primaryKey);
                Map<String, TreeSet<String>> unique = new TreeMap<>();
                try (ResultSet rs = md.getIndexInfo(null, schema, table, true, false)) {
                    while (rs.next()) {
                        String column = rs.getString("COLUMN_NAME");
                        if (column != null) {
                            unique.computeIfAbsent(rs.getString("INDEX_NAME"), k -> new TreeSet<>())
                                    .add(column.toLowerCase(Locale.ROOT));
                        }
                    }
                }
                TreeSet<String> uniqueSets = new TreeSet<>();
                unique.values().stream()
                        .filter(cols -> !cols.equals(primaryKey))
                        .forEach(cols -> uniqueSets.add(cols.toString()));
                out.add("unique " + uniqueSets);
                tables.put(name, out);
            }
        }
        return tables;
    }

    /** What differs, table by table: lines only one side has, or the same lines in another order. */
    static List<String> drift(Map<String, List<String>> h2, Map<String, List<String>> postgres) {
        List<String> out = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>(h2.keySet());
        names.addAll(postgres.keySet());
        for (String table : names) {
            List<String> a = h2.getOrDefault(table, List.of());
            List<String> b = postgres.getOrDefault(table, List.of());
            if (a.equals(b)) {
                continue;
            }
            a.stream().filter(line -> !b.contains(line)).forEach(line -> out.add(table + ": only on H2: " + line));
            b.stream()
                    .filter(line -> !a.contains(line))
                    .forEach(line -> out.add(table + ": only on PostgreSQL: " + line));
            if (new TreeSet<>(a).equals(new TreeSet<>(b))) {
                out.add(table + ": the columns are in another order: H2 " + a + ", PostgreSQL " + b);
            }
        }
        return out;
    }

    /** The JDBC type's family, with the size only where the type bounds the value by it. */
    private static String family(int jdbcType, String typeName, int size) {
        return switch (jdbcType) {
            case Types.VARCHAR, Types.NVARCHAR, Types.CHAR -> size >= 1_000_000 ? "text" : "varchar(" + size + ")";
            case Types.CLOB, Types.NCLOB, Types.LONGVARCHAR, Types.LONGNVARCHAR -> "text";
            case Types.BLOB, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY -> "bytes";
            case Types.BIGINT -> "bigint";
            case Types.INTEGER -> "integer";
            case Types.SMALLINT, Types.TINYINT -> "smallint";
            case Types.BOOLEAN, Types.BIT -> "boolean";
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> "timestamp";
            case Types.DOUBLE, Types.FLOAT, Types.REAL -> "double";
            case Types.NUMERIC, Types.DECIMAL -> "numeric";
            default -> "other:" + typeName.toLowerCase(Locale.ROOT);
        };
    }
}
