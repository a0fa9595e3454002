package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.ResyncSummary;

/**
 * The end of a full re-download ({@link JdbcResync#finish}) compares the copy of the local records
 * with the downloaded ones in SQL (constant memory for 1,000,000 records). On real H2
 * (memory and the app's file URL): a hand-made case with its counts written out, and random cases
 * checked against the earlier algorithm (two maps of every record's state, kept here as the
 * reference), including what becomes a conflict and the server state written into it.
 */
class ResyncFinishTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final TaskKey OTHER = TaskKey.of("bob", "course_sync");

    @TempDir
    Path dir;

    Database db;

    @AfterEach
    void tearDown() {
        if (db != null) {
            db.close();
        }
    }

    /** A record's state in one table; {@code ownEditBase} null: it came from a pull. */
    record State(long version, boolean deleted, String payload, Long ownEditBase) {
        boolean sameAs(State other) {
            return other != null
                    && version == other.version
                    && deleted == other.deleted
                    && (deleted || payload.equals(other.payload));
        }
    }

    /** A pending (or conflict) outbox entry. */
    record Edit(long seq, String changeId, String recordId, long baseVersion, String state) {}

    /** One scenario: the copy, the downloaded records, the outbox, and the highest seq before the download. */
    record Scenario(Map<String, State> before, Map<String, State> now, List<Edit> outbox, long outboxBefore) {}

    @Test
    void aHandMadeCaseCountsEachKindOnceAndMarksOnlyTheReissuedBase() throws Exception {
        db = Database.openInMemory();
        Map<String, State> before = new HashMap<>();
        Map<String, State> now = new HashMap<>();
        before.put("same", new State(1, false, "{\"a\":1}", null));
        now.put("same", new State(1, false, "{\"a\":1}", null));
        before.put("gone", new State(2, false, "{}", null)); // removed: absent now
        before.put("deletedNow", new State(2, false, "{}", null)); // removed: deleted now
        now.put("deletedNow", new State(3, true, "{}", null));
        before.put("newVersion", new State(1, false, "{}", null)); // changed: version
        now.put("newVersion", new State(2, false, "{}", null));
        before.put("newContent", new State(4, false, "{\"x\":1}", null)); // changed: content, same version
        now.put("newContent", new State(4, false, "{\"x\":2}", null));
        before.put("wasDeleted", new State(5, true, "{}", null)); // added: deleted before
        now.put("wasDeleted", new State(6, false, "{}", null));
        now.put("brandNew", new State(1, false, "{}", null)); // added: absent before
        before.put("bothDeleted", new State(7, true, "old", null)); // nothing: deleted in both
        now.put("bothDeleted", new State(7, true, "other", null));
        before.put("ownKept", new State(3, false, "{\"o\":1}", 2L)); // own edit the server has
        now.put("ownKept", new State(3, false, "{\"o\":1}", null));
        before.put("ownLost", new State(3, false, "{\"o\":2}", 2L)); // own edit lost (and changed)
        now.put("ownLost", new State(3, false, "{\"o\":3}", null));
        List<Edit> outbox = List.of(
                new Edit(1, "c-reissued", "newContent", 4, "pending"), // version 4 now holds other content
                new Edit(2, "c-same", "same", 1, "pending"), // version 1 holds what this device had
                new Edit(3, "c-older", "newVersion", 1, "pending"), // based on an older version: a normal push
                new Edit(4, "c-new", "brandNew", 0, "pending"), // a creation
                new Edit(5, "c-after", "newContent", 4, "pending"), // made after the download began
                new Edit(6, "c-conflict", "ownLost", 3, "conflict")); // not pending
        Scenario s = new Scenario(before, now, outbox, 4);
        write(s);

        JdbcResync.Finished f = finish();

        assertThat(f.summary()).isEqualTo(new ResyncSummary("went_back", 2, 3, 2, 1, 4, 1));
        assertThat(f.newConflicts()).containsExactly("c-reissued");
        assertThat(conflictState("c-reissued")).isEqualTo("conflict 4 false {\"x\":2}");
        assertThat(conflictState("c-same")).isEqualTo("pending null null null");
        assertThat(f).isEqualTo(reference(s));
        assertCopyDropped();
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "file"})
    void randomCasesGiveWhatTheEarlierTwoMapComparisonGave(String where) throws Exception {
        db = where.equals("memory") ? Database.openInMemory() : Database.openFile(dir.resolve("data"));
        Random random = new Random(14_6L);
        for (int round = 0; round < 12; round++) {
            Scenario s = randomScenario(random, 300);
            write(s);
            JdbcResync.Finished expected = reference(s);

            JdbcResync.Finished f = finish();

            assertThat(f).as("round %d", round).isEqualTo(expected);
            for (String changeId : expected.newConflicts()) {
                String recordId = s.outbox().stream()
                        .filter(e -> e.changeId().equals(changeId))
                        .findFirst()
                        .orElseThrow()
                        .recordId();
                State server = s.now().get(recordId);
                assertThat(conflictState(changeId))
                        .isEqualTo("conflict " + server.version() + " " + server.deleted() + " "
                                + (server.deleted() ? "{}" : server.payload()));
            }
            assertCopyDropped();
            clear();
        }
    }

    @Test
    void anotherKeysRowsAreNeitherCountedNorTouched() throws Exception {
        db = Database.openInMemory();
        Map<String, State> before = Map.of("r", new State(1, false, "{}", null));
        Map<String, State> now = Map.of("r", new State(1, false, "{}", null));
        write(new Scenario(before, now, List.of(), 0));
        db.transaction("other key", c -> {
            insertRecord(c, "resync_previous", OTHER, "x", new State(1, false, "{}", 1L));
            insertRecord(c, "local_record", OTHER, "y", new State(1, false, "{}", null));
            return null;
        });

        JdbcResync.Finished f = finish();

        assertThat(f.summary()).isEqualTo(new ResyncSummary("went_back", 0, 0, 0, 0, 0, 0));
        assertThat(db.<Integer>query(
                        "count", c -> count(c, "SELECT COUNT(*) FROM resync_previous WHERE user_id = 'bob'")))
                .isEqualTo(1);
    }

    JdbcResync.Finished finish() {
        Optional<JdbcResync.Finished> f = db.transaction("finish", c -> JdbcResync.finish(c, KEY));
        assertThat(f).isPresent();
        return f.orElseThrow();
    }

    /** The earlier algorithm of {@code JdbcResync.finish}: every state of both tables in two maps. */
    static JdbcResync.Finished reference(Scenario s) {
        int removed = 0;
        int changed = 0;
        int added = 0;
        int lostOwn = 0;
        for (Map.Entry<String, State> e : s.before().entrySet()) {
            State after = s.now().get(e.getKey());
            State was = e.getValue();
            if (was.ownEditBase() != null && !was.sameAs(after)) {
                lostOwn++;
            }
            if (was.deleted()) {
                continue;
            }
            if (after == null || after.deleted()) {
                removed++;
            } else if (!after.sameAs(was)) {
                changed++;
            }
        }
        for (Map.Entry<String, State> e : s.now().entrySet()) {
            State old = s.before().get(e.getKey());
            if (!e.getValue().deleted() && (old == null || old.deleted())) {
                added++;
            }
        }
        Set<String> marked = new java.util.LinkedHashSet<>();
        int kept = 0;
        for (Edit e : s.outbox()) {
            if (e.seq() <= s.outboxBefore()) {
                kept++;
            }
            if (!e.state().equals("pending") || e.seq() > s.outboxBefore() || e.baseVersion() <= 0) {
                continue;
            }
            State server = s.now().get(e.recordId());
            if (server != null
                    && server.version() == e.baseVersion()
                    && !server.sameAs(s.before().get(e.recordId()))) {
                marked.add(e.changeId());
            }
        }
        return new JdbcResync.Finished(
                new ResyncSummary("went_back", removed, changed, added, lostOwn, kept, marked.size()), marked);
    }

    static Scenario randomScenario(Random random, int records) {
        Map<String, State> before = new HashMap<>();
        Map<String, State> now = new HashMap<>();
        List<Edit> outbox = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            String id = "rec-" + i;
            State was = null;
            if (random.nextInt(5) > 0) {
                was = new State(
                        1 + random.nextInt(4),
                        random.nextInt(6) == 0,
                        "{\"v\":" + random.nextInt(3) + "}",
                        random.nextInt(4) == 0 ? Long.valueOf(random.nextInt(3)) : null);
                before.put(id, was);
            }
            State after = switch (random.nextInt(6)) {
                case 0 -> null;
                case 1, 2 -> was == null ? null : new State(was.version(), was.deleted(), was.payload(), null);
                case 3 -> new State(1 + random.nextInt(4), false, "{\"v\":" + random.nextInt(3) + "}", null);
                case 4 ->
                    new State(
                            was == null ? 1 : was.version(),
                            random.nextBoolean(),
                            "{\"v\":" + random.nextInt(3) + "}",
                            null);
                default -> new State(1 + random.nextInt(4), true, random.nextBoolean() ? "{}" : "{\"gone\":1}", null);
            };
            if (after != null) {
                now.put(id, after);
            }
        }
        long seq = 0;
        for (int i = 0; i < records / 3; i++) {
            String recordId = "rec-" + random.nextInt(records + 20); // some name a record neither table has
            outbox.add(new Edit(
                    ++seq,
                    "change-" + seq,
                    recordId,
                    random.nextInt(5),
                    random.nextInt(8) == 0 ? "conflict" : "pending"));
        }
        return new Scenario(before, now, outbox, seq - random.nextInt(10));
    }

    void write(Scenario s) {
        db.transaction("write the scenario", c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO resync (user_id, scope, reason, started_at_ms,"
                    + " outbox_seq_before) VALUES (?, ?, 'went_back', 0, ?)")) {
                JdbcLocalData.bindKey(ps, 1, KEY);
                ps.setLong(3, s.outboxBefore());
                ps.executeUpdate();
            }
            for (Map.Entry<String, State> e : s.before().entrySet()) {
                insertRecord(c, "resync_previous", KEY, e.getKey(), e.getValue());
            }
            for (Map.Entry<String, State> e : s.now().entrySet()) {
                insertRecord(c, "local_record", KEY, e.getKey(), e.getValue());
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO outbox (seq, user_id, scope, change_id, record_id,"
                            + " base_version, deleted, payload, created_at_ms, state) VALUES (?, ?, ?, ?, ?, ?, FALSE, '{}', 0, ?)")) {
                for (Edit e : s.outbox()) {
                    ps.setLong(1, e.seq());
                    JdbcLocalData.bindKey(ps, 2, KEY);
                    ps.setString(4, e.changeId());
                    ps.setString(5, e.recordId());
                    ps.setLong(6, e.baseVersion());
                    ps.setString(7, e.state());
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    static void insertRecord(Connection c, String table, TaskKey key, String recordId, State s) throws SQLException {
        String sql = table.equals("local_record")
                ? "INSERT INTO local_record (user_id, scope, record_id, version, deleted, payload, own_edit_base,"
                        + " server_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 0)"
                : "INSERT INTO resync_previous (user_id, scope, record_id, version, deleted, payload, own_edit_base)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, recordId);
            ps.setLong(4, s.version());
            ps.setBoolean(5, s.deleted());
            ps.setString(6, s.payload());
            if (s.ownEditBase() == null) {
                ps.setNull(7, java.sql.Types.BIGINT);
            } else {
                ps.setLong(7, s.ownEditBase());
            }
            ps.executeUpdate();
        }
    }

    String conflictState(String changeId) {
        return db.query("read " + changeId, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT state, server_version, server_deleted, server_payload FROM outbox WHERE change_id = ?")) {
                ps.setString(1, changeId);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    return rs.getString(1) + " " + rs.getObject(2) + " " + rs.getObject(3) + " " + rs.getString(4);
                }
            }
        });
    }

    void assertCopyDropped() {
        assertThat(db.<Integer>query(
                        "count",
                        c -> count(c, "SELECT COUNT(*) FROM resync_previous WHERE user_id = 'alice'")
                                + count(c, "SELECT COUNT(*) FROM resync WHERE user_id = 'alice'")))
                .isZero();
    }

    void clear() {
        db.transaction("clear", c -> {
            for (String t : List.of("outbox", "local_record", "resync_previous", "resync")) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t)) {
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    static int count(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
