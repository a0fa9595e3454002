package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushLimits;
import org.leasesync.sync.RemoteRecord;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * A pulled page and a push's confirmed edits are written as one JDBC batch of upserts
 * (H2 {@code MERGE ... USING}, PostgreSQL {@code ON CONFLICT}); the rules stay those of the
 * statement-by-statement writes they replace — on both vendors.
 */
@PostgresTest
class LocalRecordWritesTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final TaskKey OTHER = TaskKey.of("bob", "course_sync");
    static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    static Stream<Arguments> databases() {
        Supplier<Database> h2 = Database::openInMemory;
        Supplier<Database> pg = () -> {
            Postgres.Db db = Postgres.newDatabase();
            return Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 2);
        };
        return Stream.of(Arguments.of("H2", h2), Arguments.of("PostgreSQL", pg));
    }

    static RemoteRecord rec(String id, long version, String payload) {
        return new RemoteRecord(id, version, false, payload, T.plusSeconds(version));
    }

    static void apply(Database db, TaskKey key, RemoteRecord... page) {
        db.transaction("apply", c -> {
            LocalRecordWrites.applyPage(c, db.dialect(), key, List.of(page));
            return null;
        });
    }

    static void ownEdit(Database db, String id, long version, String payload, long base) {
        db.transaction("own edit", c -> {
            try (PreparedStatement ps = c.prepareStatement(LocalRecordWrites.ownEditSql(db.dialect()))) {
                LocalRecordWrites.bindOwnEdit(ps, KEY, id, version, false, payload, T, base);
                ps.addBatch();
                ps.executeBatch();
            }
            return null;
        });
    }

    /** "id@version payload own_edit_base" for every record of {@code key}, by id. */
    static List<String> rows(Database db, TaskKey key) {
        return db.query("read", c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT record_id, version, payload, own_edit_base, server_time_ms"
                            + " FROM local_record WHERE user_id = ? AND scope = ? ORDER BY record_id")) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long base = rs.getLong(4);
                        String ownEditBase = rs.wasNull() ? "-" : Long.toString(base);
                        out.add(rs.getString(1) + "@" + rs.getLong(2) + " " + rs.getString(3) + " " + ownEditBase);
                    }
                }
            }
            return out;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aPageInsertsNewRecordsUpdatesOlderOnesAndKeepsNewerLocalCopies(String vendor, Supplier<Database> open) {
        try (Database db = open.get()) {
            apply(db, KEY, rec("a", 1, "{\"a\":1}"), rec("b", 5, "{\"b\":5}"), rec("c", 2, "{\"c\":2}"));
            apply(db, OTHER, rec("a", 9, "{\"bob\":9}"));
            // a newer version replaces, an older one is ignored, a duplicate in one page ends at its highest
            apply(
                    db,
                    KEY,
                    rec("a", 2, "{\"a\":2}"),
                    rec("b", 4, "{\"b\":4}"),
                    rec("d", 3, "{\"d\":3}"),
                    rec("d", 1, "{\"d\":1}"));
            assertThat(rows(db, KEY))
                    .containsExactly("a@2 {\"a\":2} -", "b@5 {\"b\":5} -", "c@2 {\"c\":2} -", "d@3 {\"d\":3} -");
            assertThat(rows(db, OTHER)).containsExactly("a@9 {\"bob\":9} -");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void ownEditBaseSurvivesOnlyTheEchoOfThisDevicesOwnVersion(String vendor, Supplier<Database> open) {
        try (Database db = open.get()) {
            ownEdit(db, "n", 1, "{\"new\":1}", 0); // absent: inserted with its base
            apply(db, KEY, rec("a", 1, "{\"a\":1}"));
            ownEdit(db, "a", 2, "{\"mine\":2}", 1); // older local copy: updated with its base
            ownEdit(db, "n", 1, "{\"stale\":0}", 7); // same version: written again (version <= 1)
            apply(db, KEY, rec("a", 2, "{\"mine\":2}")); // the echo of our own version keeps the base
            assertThat(rows(db, KEY)).containsExactly("a@2 {\"mine\":2} 1", "n@1 {\"stale\":0} 7");
            apply(db, KEY, rec("a", 3, "{\"theirs\":3}")); // a newer version from elsewhere clears it
            ownEdit(db, "a", 2, "{\"late\":2}", 1); // the local copy is newer: kept
            assertThat(rows(db, KEY)).containsExactly("a@3 {\"theirs\":3} -", "n@1 {\"stale\":0} 7");
        }
    }

    @org.junit.jupiter.api.Test
    void aPushBatchIsTheLongestPrefixWithinTheByteLimit() {
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            entries.add(new OutboxEntry(i + 1, "c" + i, "r" + i, 0, false, "{\"x\":\"" + "y".repeat(i * 7) + "\"}", T));
        }
        for (long max = 0; max < PushLimits.batchBytes(entries) + 10; max += 37) {
            List<OutboxEntry> got = JdbcLocalData.withinBytes(entries, max);
            assertThat(got).isEqualTo(entries.subList(0, got.size()));
            assertThat(got).isNotEmpty();
            assertThat(got.size() == 1 || PushLimits.batchBytes(got) <= max)
                    .as("within %d", max)
                    .isTrue();
            if (got.size() < entries.size()) {
                assertThat(PushLimits.batchBytes(entries.subList(0, got.size() + 1)))
                        .isGreaterThan(max);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void theNextPushBatchIsReadByWalkingTheOutboxIndexInOrder() {
        try (Database db = Database.openInMemory()) {
            JdbcLocalEdits edits = new JdbcLocalEdits(db, org.leasesync.lease.TimeSource.system());
            for (int i = 0; i < 50; i++) {
                edits.addEdit(KEY, "r" + i, "{}", false);
            }
            java.util.function.Function<String, String> explain = sql -> db.query("explain", c -> {
                try (PreparedStatement ps = c.prepareStatement("EXPLAIN ANALYZE " + sql)) {
                    JdbcLocalData.bindKey(ps, 1, KEY);
                    ps.setInt(3, 10);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getString(1);
                    }
                }
            });
            assertThat(explain.apply(JdbcLocalData.PENDING_SEQS_SQL))
                    .contains("index sorted")
                    .contains("scanCount: 10");
            // what it was: ORDER BY seq alone read all 50 pending edits and sorted them for a batch of 10
            assertThat(explain.apply(JdbcLocalData.PENDING_SEQS_SQL.replace(
                            "ORDER BY user_id, scope, state, seq", "ORDER BY seq")))
                    .doesNotContain("index sorted")
                    .contains("scanCount: 51");
        }
    }
}
