package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.testing.ManualTime;

/**
 * Resolving a conflict keeps the side not kept as a conflict copy (client migration V14), in the same
 * transaction; a copy is restored as a new edit or deleted. On H2 here, on PostgreSQL in
 * {@link PostgresConflictCopiesTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConflictCopiesTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    final ManualTime time = new ManualTime(Instant.parse("2026-12-01T10:00:00Z"));
    LocalStore store;
    JdbcLocalEdits edits;
    ConflictCopies copies;

    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    @BeforeEach
    void open() {
        store = openStore();
        edits = new JdbcLocalEdits(store.database(), time);
        copies = new ConflictCopies(store.database(), time);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** The server's version 4 of c1 as pulled, and an edit the user made on version 3: a conflict. */
    String conflict() {
        store.database().transaction("pull c1", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO local_record (user_id, scope, record_id, version,"
                            + " deleted, payload, server_time_ms) VALUES ('alice', 'course_sync', 'c1', 4, FALSE, ?, ?)")) {
                ps.setString(1, "{\"title\":\"theirs\"}");
                ps.setLong(2, Instant.parse("2026-12-01T09:00:00Z").toEpochMilli());
                return ps.executeUpdate();
            }
        });
        SavedEdit saved = edits.saveEdit(KEY, "c1", "{\"title\":\"mine\"}", false, OptionalLong.of(3));
        assertThat(saved.conflict()).isTrue();
        return saved.changeId();
    }

    @Test
    void takingTheServersVersionKeepsTheEditAsACopyThatRestoresAsANewEdit() {
        String change = conflict();
        time.elapse(java.time.Duration.ofMinutes(5));
        ConflictCopies.Resolution r = copies.resolve(KEY, change, ConflictCopies.Choice.TAKE_SERVERS, Optional.empty())
                .orElseThrow();
        assertThat(edits.outbox(KEY)).isEmpty();
        ConflictCopies.Copy copy = r.copy();
        assertThat(copy.side()).isEqualTo(ConflictCopies.Side.MINE);
        assertThat(copy.version()).isEqualTo(3);
        assertThat(copy.payloadJson()).isEqualTo("{\"title\":\"mine\"}");
        assertThat(copy.madeAt()).contains(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(copy.resolvedAt()).isEqualTo(Instant.parse("2026-12-01T10:05:00Z"));
        assertThat(copies.list(KEY)).containsExactly(copy);
        assertThat(copies.resolve(KEY, change, ConflictCopies.Choice.TAKE_SERVERS, Optional.empty()))
                .isEmpty();

        ConflictCopies.Restored restored = copies.restore(KEY, copy.id()).orElseThrow();
        assertThat(restored.edit().conflict()).isFalse();
        assertThat(restored.edit().baseVersion()).isEqualTo(4);
        assertThat(edits.outbox(KEY)).singleElement().satisfies(i -> {
            assertThat(i.isPending()).isTrue();
            assertThat(i.payloadJson()).isEqualTo("{\"title\":\"mine\"}");
        });
        assertThat(copies.list(KEY)).isEmpty();
        assertThat(copies.restore(KEY, copy.id())).isEmpty();
    }

    @Test
    void keepingMineKeepsTheServersVersionWithTheTimeTheServerAppliedIt() {
        String change = conflict();
        assertThat(edits.keepMine(KEY, change)).isTrue();
        ConflictCopies.Copy copy = copies.list(KEY).get(0);
        assertThat(copy.side()).isEqualTo(ConflictCopies.Side.SERVER);
        assertThat(copy.version()).isEqualTo(4);
        assertThat(copy.payloadJson()).isEqualTo("{\"title\":\"theirs\"}");
        assertThat(copy.madeAt()).contains(Instant.parse("2026-12-01T09:00:00Z"));
        assertThat(edits.outbox(KEY)).singleElement().satisfies(i -> {
            assertThat(i.isPending()).isTrue();
            assertThat(i.baseVersion()).isEqualTo(4);
        });
        assertThat(copies.delete(KEY, copy.id())).isTrue();
        assertThat(copies.delete(KEY, copy.id())).isFalse();
        assertThat(copies.list(KEY)).isEmpty();
    }

    @Test
    void editAndKeepPushesTheEditedContentAndACopyBelongsToItsKeyOnly() {
        String change = conflict();
        assertThatThrownBy(() -> copies.resolve(KEY, change, ConflictCopies.Choice.EDIT_AND_KEEP, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(change);
        ConflictCopies.Copy copy = copies.resolve(
                        KEY, change, ConflictCopies.Choice.EDIT_AND_KEEP, Optional.of("{\"title\":\"both\"}"))
                .orElseThrow()
                .copy();
        assertThat(edits.outbox(KEY)).singleElement().satisfies(i -> {
            assertThat(i.payloadJson()).isEqualTo("{\"title\":\"both\"}");
            assertThat(i.baseVersion()).isEqualTo(4);
            assertThat(i.isPending()).isTrue();
        });
        TaskKey bob = TaskKey.of("bob", "course_sync");
        assertThat(copies.list(bob)).isEmpty();
        assertThat(copies.copy(bob, copy.id())).isEmpty();
        assertThat(copies.delete(bob, copy.id())).isFalse();
        assertThat(copies.restore(bob, copy.id())).isEmpty();
        assertThat(copies.list(KEY)).hasSize(1);
    }
}
