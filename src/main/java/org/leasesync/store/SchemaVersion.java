package org.leasesync.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.BitSet;
import javax.sql.DataSource;

/**
 * Whether a database's schema is already at a given migration version, read from Flyway's own
 * history table ({@code flyway_schema_history}) with one query, so that opening an up-to-date
 * database does not load Flyway at all (~390 classes and its plugin registry, the largest single
 * item of a window's start-up after JavaFX; docs/benchmarks.md). Flyway's marker row
 * for the creation of its table (type {@code TABLE}, no version) is passed over. Anything else — no
 * history table, a failed or missing version, a version beyond {@code latest}, a repeatable or
 * baseline entry, any error — answers "not current", and the caller runs Flyway as before, which
 * migrates, validates and reports exactly as it always did.
 *
 * <p>Stateless and thread-safe; {@link #isCurrent} blocks for one query.
 */
public final class SchemaVersion {

    private SchemaVersion() {}

    /**
     * @param latest the highest migration version the application ships (versions are 1, 2, …, latest)
     * @return true only if the history lists exactly versions 1..{@code latest}, each applied successfully
     * @throws IllegalArgumentException if {@code latest} is below 1
     */
    public static boolean isCurrent(DataSource ds, int latest) {
        if (latest < 1) {
            throw new IllegalArgumentException("the latest schema version must be >= 1, got " + latest);
        }
        BitSet seen = new BitSet();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT \"version\", \"success\", \"type\" FROM \"flyway_schema_history\"")) {
            while (rs.next()) {
                String version = rs.getString(1);
                if (version == null && "TABLE".equals(rs.getString(3)) && rs.getBoolean(2)) {
                    continue; // Flyway 11's marker row for the creation of the history table itself
                }
                if (!rs.getBoolean(2) || version == null || !version.matches("[1-9][0-9]{0,8}")) {
                    return false;
                }
                int v = Integer.parseInt(version);
                if (v > latest || seen.get(v)) {
                    return false;
                }
                seen.set(v);
            }
        } catch (SQLException | RuntimeException e) {
            return false; // no history yet (a new database) or unreadable: Flyway decides and reports
        }
        return seen.cardinality() == latest && seen.nextSetBit(0) == 1;
    }
}
