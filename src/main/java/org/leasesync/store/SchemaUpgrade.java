package org.leasesync.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reading a database's schema version and migrating it, the same way for the client's and the
 * server's databases: before Flyway runs, the version is read from its history table, a schema newer
 * than this program's is refused with {@link NewerSchemaException} (Flyway itself would skip
 * "future" migrations and let this version's SQL meet tables it does not know), and the upgrade is
 * announced: a warning (so on the command line's stderr, and in the log file) "upgrading … from
 * schema N to M". Whoever calls {@link #migrate} has made sure it is the only one migrating and, on
 * H2, has taken a copy first (see {@code store.h2.UpgradeCopy}); on PostgreSQL each migration runs in
 * one transaction, so a cut-short one is rolled back by the server, and Flyway's advisory lock makes a
 * second migrating instance wait.
 *
 * <p>Stateless and thread-safe. Every method blocks on the database.
 */
public final class SchemaUpgrade {

    private static final Logger log = LoggerFactory.getLogger(SchemaUpgrade.class);

    private SchemaUpgrade() {}

    /**
     * What the history table says.
     *
     * @param highest the highest version applied successfully; 0 when none
     * @param current exactly versions 1..latest, each applied successfully
     */
    public record Found(int highest, boolean current) {

        /** Whether the database holds a schema at all (else it is new: nothing to copy or keep). */
        public boolean empty() {
            return highest == 0;
        }
    }

    /**
     * Reads the history. Never throws: an unreadable or missing history is a new database (Flyway then
     * decides and reports).
     *
     * @param latest the highest version this program ships
     */
    public static Found read(DataSource ds, int latest) {
        boolean current = SchemaVersion.isCurrent(ds, latest);
        int highest = 0;
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT \"version\" FROM \"flyway_schema_history\" WHERE \"success\"")) {
            while (rs.next()) {
                String v = rs.getString(1);
                if (v != null && v.matches("[1-9][0-9]{0,8}")) {
                    highest = Math.max(highest, Integer.parseInt(v));
                }
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("no schema history: {}", e.toString());
        }
        return new Found(highest, current);
    }

    /**
     * @param what how to name the database in the message ("this data directory (…)")
     * @throws NewerSchemaException when {@code found} is beyond {@code latest}
     */
    public static void refuseNewer(Found found, int latest, String what) {
        if (found.highest() > latest) {
            throw new NewerSchemaException(what, found.highest(), latest);
        }
    }

    /**
     * Migrates to {@code latest} with Flyway, however long it takes, announcing it when the database
     * held a schema.
     *
     * @param locations the migrations' Flyway locations ({@link SqlDialect#clientMigrations()})
     * @param what how to name the database in the log ("the local database …")
     * @throws RuntimeException Flyway's, when a migration fails
     */
    public static void migrate(DataSource ds, String[] locations, Found from, int latest, String what) {
        if (!from.empty()) {
            log.warn(
                    "upgrading {} from schema {} to {}… (leave it running until it finishes)",
                    what,
                    from.highest(),
                    latest);
        }
        Flyway.configure()
                .dataSource(ds)
                .locations(locations)
                .failOnMissingLocations(true)
                .callbacks(new MigrationProbe())
                .load()
                .migrate();
        if (!from.empty()) {
            log.info("upgraded {} to schema {}", what, latest);
        }
    }

    /**
     * Refuses a newer schema, then migrates unless current: for databases no copy is taken of
     * (PostgreSQL, whose DDL is transactional; memory).
     *
     * @throws NewerSchemaException as {@link #refuseNewer}
     */
    public static void migrateInPlace(DataSource ds, String[] locations, int latest, String what) {
        Found found = read(ds, latest);
        refuseNewer(found, latest, what);
        if (!found.current()) {
            migrate(ds, locations, found, latest, what);
        }
    }
}
