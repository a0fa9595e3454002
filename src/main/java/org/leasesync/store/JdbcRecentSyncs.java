package org.leasesync.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.sync.NewestRun;
import org.leasesync.sync.RecentSyncs;
import org.leasesync.sync.TriggerSkip;

/**
 * The recent-sync check's storage in SQL: a key's newest run with its monotonic end stamp (written by
 * {@link JdbcRunStore#finishRun}) and the table {@code trigger_skip} (migration V7).
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcRecentSyncs implements RecentSyncs {

    private static final int MAX_REASON = 2000;

    private final Database db;

    public JdbcRecentSyncs(Database db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    @Override
    public Optional<NewestRun> newestRun(TaskKey key) {
        return db.query("read the newest run of " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT run_id, owner_id, status, ended_mono_ns, mono_clock"
                    + " FROM run WHERE task_key = ?" + JdbcRunHistory.BY_EPOCH)) {
                ps.setString(1, key.asString());
                ps.setMaxRows(1);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<NewestRun>empty();
                    }
                    long mono = rs.getLong(4);
                    OptionalLong ended = rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(mono);
                    return Optional.of(new NewestRun(
                            rs.getString(1),
                            key,
                            rs.getString(2),
                            RunStatus.tryParse(rs.getString(3)),
                            ended,
                            Optional.ofNullable(rs.getString(5))));
                }
            }
        });
    }

    @Override
    public void recordSkip(TriggerSkip skip) {
        db.transaction("record a skipped " + skip.source().wireName() + " trigger of " + skip.key(), c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO trigger_skip (task_key, source, owner_id, at_ms,"
                            + " recent_run_id, age_ms, reason) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, skip.key().asString());
                ps.setString(2, skip.source().wireName());
                ps.setString(3, skip.owner());
                ps.setLong(4, skip.at().toEpochMilli());
                ps.setString(5, skip.recentRunId());
                ps.setLong(6, skip.age().toMillis());
                String reason = skip.reason();
                ps.setString(7, reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON - 1) + "…");
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public List<TriggerSkip> skips(TaskKey key, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("skip limit must be >= 1, got " + limit);
        }
        return db.query("read the skipped triggers of " + key, c -> {
            List<TriggerSkip> out = new ArrayList<>();
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT source, owner_id, at_ms, recent_run_id, age_ms, reason"
                            + " FROM trigger_skip WHERE task_key = ? ORDER BY id DESC")) {
                ps.setString(1, key.asString());
                ps.setMaxRows(limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && out.size() < limit) {
                        out.add(new TriggerSkip(
                                key,
                                source(rs.getString(1)),
                                rs.getString(2),
                                Instant.ofEpochMilli(rs.getLong(3)),
                                rs.getString(4),
                                Duration.ofMillis(Math.max(0, rs.getLong(5))),
                                rs.getString(6)));
                    }
                }
            }
            return out;
        });
    }

    private static TaskSource source(String s) {
        try {
            return TaskSource.parse(s);
        } catch (IllegalArgumentException e) {
            return TaskSource.SCHEDULE; // unreadable source text: the entry is still listed
        }
    }
}
