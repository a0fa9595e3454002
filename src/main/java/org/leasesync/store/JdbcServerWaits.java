package org.leasesync.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.ServerWait;
import org.leasesync.run.ServerWaits;

/**
 * The sync server's waits in SQL: table {@code server_wait} (migration V11), one row per task key.
 * A save is a delete and an insert in one transaction (the same statements on H2 and PostgreSQL).
 *
 * <p>Thread-safe; blocks on the database; throws {@link org.leasesync.lease.StoreException} when it fails.
 */
public final class JdbcServerWaits implements ServerWaits {

    private static final int MAX_REASON = 2000;

    private final Database db;

    public JdbcServerWaits(Database db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    @Override
    public Optional<ServerWait> wait(TaskKey key) {
        return db.query("read the server's wait for " + key, c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT until_ms, asked_at_ms, reason FROM server_wait WHERE task_key = ?")) {
                ps.setString(1, key.asString());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<ServerWait>empty();
                    }
                    Instant until = Instant.ofEpochMilli(rs.getLong(1));
                    Instant asked = Instant.ofEpochMilli(rs.getLong(2));
                    // a row written by hand with the times the wrong way round still means "wait until"
                    return Optional.of(new ServerWait(until, asked.isAfter(until) ? until : asked, rs.getString(3)));
                }
            }
        });
    }

    @Override
    public void save(TaskKey key, ServerWait wait) {
        db.transaction("record the server's wait for " + key, c -> {
            try (PreparedStatement del = c.prepareStatement("DELETE FROM server_wait WHERE task_key = ?");
                    PreparedStatement ins = c.prepareStatement(
                            "INSERT INTO server_wait (task_key, until_ms, asked_at_ms, reason) VALUES (?, ?, ?, ?)")) {
                del.setString(1, key.asString());
                del.executeUpdate();
                ins.setString(1, key.asString());
                ins.setLong(2, wait.until().toEpochMilli());
                ins.setLong(3, wait.askedAt().toEpochMilli());
                String reason = wait.reason();
                ins.setString(4, reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON - 1) + "…");
                ins.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public void clear(TaskKey key) {
        db.transaction("forget the server's wait for " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM server_wait WHERE task_key = ?")) {
                ps.setString(1, key.asString());
                ps.executeUpdate();
            }
            return null;
        });
    }
}
