package org.leasesync.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.store.SqlDialect;

/**
 * Each of the four jobs against the server's real schema, on H2 and on PostgreSQL (subclasses): what
 * it deletes and keeps, its bounded batches and the positions it moves through.
 */
abstract class StandardJobsContract {

    static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    static final long NOW_MS = NOW.toEpochMilli();
    static final long HOUR = 3_600_000L;

    SchemaDb db;

    abstract SqlDialect dialect();

    @BeforeEach
    void open() {
        db = SchemaDb.of(dialect());
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** One batch's outcome, as the runner would commit it. */
    record Step<P>(P next, long processed, boolean finished) {}

    /** Runs a whole occurrence batch by batch, each batch in a transaction of its own, from the job's start. */
    <P> List<Step<P>> runAll(Job<P> job, int batchSize) {
        return runFrom(job, job.start(NOW), batchSize);
    }

    <P> List<Step<P>> runFrom(Job<P> job, P start, int batchSize) {
        List<Step<P>> steps = new ArrayList<>();
        P position = start;
        for (int i = 0; i < 1000; i++) {
            P from = position;
            Job.Batch<P> b = db.db.transaction("step", c -> job.step(c, from, batchSize, NOW));
            steps.add(new Step<>(b.next(), b.processed(), b.finished()));
            position = b.next();
            if (b.finished()) {
                return steps;
            }
        }
        throw new AssertionError("the job did not finish in 1000 batches");
    }

    static long total(List<? extends Step<?>> steps) {
        return steps.stream().mapToLong(Step::processed).sum();
    }

    @Test
    void expireIdempotencyKeysDeletesRecordsPastTheRetentionInBoundedBatchesAndKeepsTheRest() throws Exception {
        long retention = 24 * HOUR;
        for (int i = 0; i < 6; i++) {
            key(i % 2 == 0 ? "alice" : "bob", "old-" + i, NOW_MS - retention - HOUR - i);
        }
        key("alice", "at-the-cutoff", NOW_MS - retention); // expired: lookups ignore it from this instant
        key("alice", "fresh-1", NOW_MS - retention + 1);
        key("bob", "fresh-2", NOW_MS - HOUR);
        key("bob", "fresh-3", NOW_MS);

        ExpireIdempotencyKeysJob job = new ExpireIdempotencyKeysJob(Duration.ofMillis(retention));
        List<Step<ExpireIdempotencyKeysJob.Position>> steps = runAll(job, 3);

        assertThat(steps).extracting(Step::processed).containsExactly(3L, 3L, 1L);
        assertThat(steps).extracting(Step::finished).containsExactly(false, false, true);
        assertThat(steps).extracting(s -> s.next().cutoffMs()).containsOnly(NOW_MS - retention);
        assertThat(strings("SELECT idem_key FROM idempotency_keys ORDER BY idem_key"))
                .containsExactly("fresh-1", "fresh-2", "fresh-3");
        assertThat(runAll(job, 3)).extracting(Step::processed).containsExactly(0L);
    }

    @Test
    void pruneAuditDeletesOldRowsInBatchesBySeqAndKeepsNewerOnes() throws Exception {
        long retention = 7 * 24 * HOUR;
        long old = NOW_MS - retention - HOUR;
        long young = NOW_MS - HOUR;
        long[] ages = {old, old, old, old, old, young, old, old, old, old, old, young, young};
        for (long at : ages) {
            audit(at);
        }
        PruneAuditJob job = new PruneAuditJob(Duration.ofMillis(retention));
        List<Step<PruneAuditJob.Position>> steps = runAll(job, 4);

        assertThat(steps).extracting(s -> s.next().afterSeq()).containsExactly(4L, 9L, 11L);
        assertThat(steps).extracting(Step::processed).containsExactly(4L, 4L, 2L);
        assertThat(steps.get(2).finished()).isTrue();
        assertThat(longs("SELECT seq FROM request_audit ORDER BY seq")).containsExactly(6L, 12L, 13L);
    }

    @Test
    void pruneAuditResumedFromAPositionKeepsItsCutoffAndSkipsWhatIsBehindIt() throws Exception {
        long retention = HOUR;
        for (int i = 0; i < 5; i++) {
            audit(NOW_MS - 2 * HOUR);
        }
        PruneAuditJob job = new PruneAuditJob(Duration.ofMillis(retention));
        PruneAuditJob.Position start = job.start(NOW);
        // An interrupted run had got past seq 2 with the cutoff of its own start.
        List<Step<PruneAuditJob.Position>> steps = runFrom(job, new PruneAuditJob.Position(start.cutoffMs(), 2), 10);
        assertThat(total(steps)).isEqualTo(3);
        assertThat(longs("SELECT seq FROM request_audit ORDER BY seq")).containsExactly(1L, 2L);
    }

    @Test
    void purgeTombstonesDeletesOldTombstonesPerUserAndScopeAndRaisesEachHorizon() throws Exception {
        long retention = 30 * 24 * HOUR;
        long old = NOW_MS - retention - HOUR;
        long young = NOW_MS - HOUR;
        scope("alice", "course_sync", 6);
        scope("alice", "message_sync", 1);
        scope("bob", "backup", 3);
        record("alice", "course_sync", "r1", 1, false, 1, old); // live: never purged
        record("alice", "course_sync", "r2", 3, true, 2, old);
        record("alice", "course_sync", "r3", 7, true, 5, old);
        record("alice", "course_sync", "r4", 2, true, 6, young); // a tombstone, but recent
        record("alice", "message_sync", "m1", 1, false, 1, old);
        record("bob", "backup", "b1", 2, true, 3, old);

        PurgeTombstonesJob job = new PurgeTombstonesJob(Duration.ofMillis(retention));
        List<Step<PurgeTombstonesJob.Position>> steps = runAll(job, 1);

        assertThat(steps).extracting(Step::processed).containsExactly(1L, 1L, 1L, 0L);
        assertThat(steps)
                .extracting(s -> s.next().user() + "|" + s.next().scope())
                .containsExactly("alice|course_sync", "alice|course_sync", "bob|backup", "bob|backup");
        assertThat(strings("SELECT record_id FROM sync_records ORDER BY record_id"))
                .containsExactly("m1", "r1", "r4");
        try (Connection c = db.pool.getConnection()) {
            // Two purges there, one in bob's: each moves the generation up by a random step of at least 1.
            TombstoneHorizons.Horizon alice = TombstoneHorizons.read(c, "alice", "course_sync");
            assertThat(alice.seq()).isEqualTo(5);
            assertThat(alice.versionFloor()).isEqualTo(7);
            assertThat(alice.generation()).isBetween(2L, 2 * 1_000_000L);
            TombstoneHorizons.Horizon bob = TombstoneHorizons.read(c, "bob", "backup");
            assertThat(bob.seq()).isEqualTo(3);
            assertThat(bob.versionFloor()).isEqualTo(2);
            assertThat(bob.generation()).isBetween(1L, 1_000_000L);
            assertThat(TombstoneHorizons.read(c, "alice", "message_sync")).isEqualTo(TombstoneHorizons.Horizon.NONE);
        }
        assertThat(runAll(job, 10)).extracting(Step::processed).containsExactly(0L);
    }

    @Test
    void releaseStaleClaimsDeletesTheClaimsOfDeadInstancesOnlyAndNeverThisInstancesOwn() throws Exception {
        claim("me", "k1");
        claim("me", "k2");
        claim("dead-a", "k3");
        claim("dead-a", "k4");
        claim("dead-a", "k5");
        claim("live-b", "k6");
        claim("dead-c", "k7");
        Set<String> alive = Set.of("live-b");
        ReleaseStaleClaimsJob job = new ReleaseStaleClaimsJob("me", (c, id) -> alive.contains(id));

        List<Step<ReleaseStaleClaimsJob.Position>> steps = runAll(job, 2);

        assertThat(steps)
                .extracting(s -> s.next().afterInstance())
                .containsExactly("", "dead-a", "dead-c", "live-b", "live-b");
        assertThat(steps).extracting(Step::processed).containsExactly(2L, 1L, 1L, 0L, 0L);
        assertThat(strings("SELECT idem_key FROM idempotency_claims ORDER BY idem_key"))
                .containsExactly("k1", "k2", "k6");
    }

    private void key(String user, String key, long completedAtMs) throws Exception {
        db.update(
                "INSERT INTO idempotency_keys (user_id, idem_key, scope, request_hash, status_code, response_body,"
                        + " completed_at_ms) VALUES (?, ?, 'backup', 'h', 200, '{}', ?)",
                user,
                key,
                completedAtMs);
    }

    private void audit(long atMs) throws Exception {
        db.update(
                "INSERT INTO request_audit (at_ms, path_user, scope, op, status, applied, duplicates, conflicts)"
                        + " VALUES (?, 'alice', 'backup', 'pull', 200, '', '', '')",
                atMs);
    }

    private void scope(String user, String scope, long lastSeq) throws Exception {
        db.update("INSERT INTO scope_state (user_id, scope, last_seq) VALUES (?, ?, ?)", user, scope, lastSeq);
    }

    private void record(String user, String scope, String id, long version, boolean deleted, long seq, long atMs)
            throws Exception {
        db.update(
                "INSERT INTO sync_records (user_id, scope, record_id, record_version, deleted, payload, seq,"
                        + " updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                user,
                scope,
                id,
                version,
                deleted,
                deleted ? null : "{}",
                seq,
                atMs);
    }

    private void claim(String instance, String key) throws Exception {
        db.update(
                "INSERT INTO idempotency_claims (user_id, idem_key, scope, request_hash, instance_id, claim_id,"
                        + " claimed_at_ms) VALUES ('alice', ?, 'backup', 'h', ?, ?, ?)",
                key,
                instance,
                "claim-" + key,
                NOW_MS);
    }

    List<String> strings(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = db.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    List<Long> longs(String sql) throws Exception {
        List<Long> out = new ArrayList<>();
        try (Connection c = db.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }
}
