package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;

/**
 * {@link RecordLocks#lockAll}: the existing lock rows are locked with one statement (an array of
 * ids joined to the table), missing rows are created and locked, and nothing else is
 * locked — checked from a second real connection with {@code FOR UPDATE NOWAIT}. H2 here;
 * PostgreSQL in a subclass.
 */
class RecordLocksTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final TaskKey OTHER = TaskKey.of("bob", "course_sync");

    Database db;

    /** The database under test; PostgreSQL in the subclass. */
    Database openDatabase() {
        return LocalStore.openInMemory().database();
    }

    @BeforeEach
    void setUp() {
        db = openDatabase();
        db.transaction("seed lock rows", c -> {
            for (String id : List.of("r-01", "r-03", "r-05", "r-07")) {
                RecordLocks.lock(c, db.dialect(), KEY, id);
            }
            RecordLocks.lock(c, db.dialect(), OTHER, "r-02");
            return null;
        });
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    @Test
    void locksExistingAndNewRowsOfTheKeyAndNothingElse() throws Exception {
        List<String> wanted = List.of("r-07", "r-02", "r-01", "r-05", "r-09", "r-02"); // unsorted, a repeat, two new
        try (Connection holder = db.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            RecordLocks.lockAll(holder, db.dialect(), KEY, wanted);

            try (Connection other = db.dataSource().getConnection()) {
                setShortLockTimeout(other); // for the session: a rollback undoes a SET inside a transaction
                other.setAutoCommit(false);
                for (String id : new TreeSet<>(wanted)) {
                    assertThat(triesLock(other, KEY, id))
                            .as("%s of %s is held by the first transaction", id, KEY)
                            .isEqualTo("held");
                }
                assertThat(triesLock(other, KEY, "r-03"))
                        .as("r-03 was not asked for")
                        .isEqualTo("locked");
                assertThat(triesLock(other, OTHER, "r-02"))
                        .as("the same id of another user")
                        .isEqualTo("locked");
                other.rollback();
            }
            holder.commit();
        }
        assertThat(rows(KEY)).containsExactly("r-01", "r-02", "r-03", "r-05", "r-07", "r-09");
        try (Connection other = db.dataSource().getConnection()) {
            other.setAutoCommit(false);
            for (String id : List.of("r-01", "r-02", "r-09")) {
                assertThat(triesLock(other, KEY, id))
                        .as("%s after the commit", id)
                        .isEqualTo("locked");
            }
            other.rollback();
        }
    }

    @Test
    void oneAndNoRecordsWork() {
        db.transaction("lock none", c -> {
            RecordLocks.lockAll(c, db.dialect(), KEY, List.of());
            RecordLocks.lockAll(c, db.dialect(), KEY, List.of("r-11"));
            return null;
        });
        assertThat(rows(KEY)).contains("r-11");
    }

    @Test
    void aTransactionLockingTheSameRowsWaitsAndGivesUpAsContention() throws Exception {
        try (Connection holder = db.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            RecordLocks.lockAll(holder, db.dialect(), KEY, List.of("r-01", "r-05"));
            try (Connection other = db.dataSource().getConnection()) {
                setShortLockTimeout(other); // for the session: a rollback undoes a SET inside a transaction
                other.setAutoCommit(false);
                assertThatThrownBy(() -> RecordLocks.lockAll(other, db.dialect(), KEY, List.of("r-05", "r-07")))
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(db.dialect().isContention((SQLException) e))
                                .as("contention")
                                .isTrue());
                other.rollback();
            }
            holder.rollback();
        }
    }

    /**
     * "locked" if this connection could lock the row, "held" if another transaction holds it. A row
     * another transaction created and has not committed is invisible here: inserting it then waits
     * for that transaction (give {@code c} a short lock timeout).
     */
    private String triesLock(Connection c, TaskKey key, String id) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT record_id FROM record_lock WHERE user_id = ? AND scope = ?"
                        + " AND record_id = ? FOR UPDATE NOWAIT")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return "locked";
                }
            }
            try (PreparedStatement ins =
                    c.prepareStatement("INSERT INTO record_lock (user_id, scope, record_id) VALUES (?, ?, ?)")) {
                JdbcLocalData.bindKey(ins, 1, key);
                ins.setString(3, id);
                ins.executeUpdate();
                return "created here";
            }
        } catch (SQLException e) {
            if (db.dialect().isContention(e)) {
                if (db.dialect() == SqlDialect.POSTGRESQL) {
                    c.rollback(); // a failed statement aborts a PostgreSQL transaction
                }
                return "held";
            }
            throw e;
        }
    }

    private void setShortLockTimeout(Connection c) throws SQLException {
        try (var s = c.createStatement()) {
            s.execute(db.dialect() == SqlDialect.H2 ? "SET LOCK_TIMEOUT 200" : "SET lock_timeout = 200");
        }
    }

    private List<String> rows(TaskKey key) {
        return db.query("read lock rows", c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT record_id FROM record_lock WHERE user_id = ? AND scope = ?" + " ORDER BY record_id")) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
            }
            return out;
        });
    }
}
