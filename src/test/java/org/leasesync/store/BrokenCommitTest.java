package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.ManualTime;

/**
 * A commit that breaks the way H2's shared file breaks it when its host process exits mid-commit
 * (real H2; only the commit's answer is replaced): the end of a run is written again, so the run
 * does not stay "running" — whether the broken commit was lost or applied — while other work still
 * reports a broken commit instead of repeating it.
 */
class BrokenCommitTest {

    static final TaskKey KEY = TaskKey.of("alice", "backup");

    private BreakingCommits commits;
    private LocalStore store;
    private final ManualTime time = new ManualTime();

    @BeforeEach
    void open() {
        String name = "broken-commit-" + System.nanoTime();
        store = LocalStore.of(Database.open(
                "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
                "sa",
                "",
                "in-memory database " + name,
                4,
                ds -> commits = new BreakingCommits(ds)));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @ParameterizedTest
    @EnumSource(BreakingCommits.Mode.class)
    void theEndOfARunIsRecordedWhenItsCommitBroke(BreakingCommits.Mode mode) {
        TaskRegistry reg = new TaskRegistry(
                store.leases(),
                new OwnerId("host", 11, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        JdbcRunStore runs = new JdbcRunStore(store.database(), time);
        HeldLease lease = reg.tryAcquire(KEY).orElseThrow();
        runs.insertRun(lease.fence(), "run-1", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        time.elapse(Duration.ofSeconds(3));
        long endedAt = time.monotonicNanos();
        int before = commits.commits();

        commits.breakNextCommit(mode);
        runs.finishRun(lease.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());

        assertThat(commits.commits() - before)
                .as("the broken commit and the one after it")
                .isEqualTo(2);
        assertThat(status("run-1")).isEqualTo("succeeded");
        assertThat(new JdbcRecentSyncs(store.database())
                        .newestRun(KEY)
                        .orElseThrow()
                        .endedMonoNanos())
                .as("stamped with the end the run saw")
                .hasValue(endedAt);
    }

    @Test
    void otherWorkReportsABrokenCommitAndIsNotRepeated() {
        store.database().transaction("make a table", c -> {
            try (PreparedStatement ps = c.prepareStatement("CREATE TABLE tally (n INT)")) {
                ps.execute();
            }
            return null;
        });
        commits.breakNextCommit(BreakingCommits.Mode.APPLIED);

        assertThatThrownBy(() -> store.database().transaction("add a row", c -> {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO tally VALUES (1)")) {
                        ps.executeUpdate();
                    }
                    return null;
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("could not add a row")
                .hasMessageContaining("Connection is broken");
        assertThat(count("SELECT COUNT(*) FROM tally"))
                .as("added once, never twice")
                .isEqualTo(1);
    }

    private String status(String runId) {
        return store.database().query("read the run", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT status FROM run WHERE run_id = ?")) {
                ps.setString(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        });
    }

    private long count(String sql) {
        return store.database().query("count", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
