package org.leasesync.chaos;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;

/** Reads one device's local database after a chaos run, for the checker. Blocks on the database. */
final class LocalEvidence {

    private LocalEvidence() {}

    static Evidence.Device read(Path dataDir) {
        try (LocalStore store = LocalStore.openFile(dataDir)) {
            String clientId = new JdbcLocalEdits(store.database(), TimeSource.system()).clientId();
            return store.database().query("read the chaos evidence", c -> {
                Map<String, Set<String>> outbox = new HashMap<>();
                try (PreparedStatement ps = c.prepareStatement("SELECT user_id, scope, change_id FROM outbox");
                        ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        outbox.computeIfAbsent(rs.getString(1) + "|" + rs.getString(2), k -> new HashSet<>())
                                .add(rs.getString(3));
                    }
                }
                int runs;
                try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM run");
                        ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    runs = rs.getInt(1);
                }
                List<String> unfinished = new ArrayList<>();
                try (PreparedStatement ps =
                                c.prepareStatement("SELECT run_id, task_key FROM run WHERE status = 'running'");
                        ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        unfinished.add(rs.getString(1) + " (" + rs.getString(2) + ")");
                    }
                }
                Map<String, List<String>> records = new HashMap<>();
                try (PreparedStatement ps = c.prepareStatement(
                                "SELECT user_id, scope, payload FROM local_record WHERE deleted = FALSE");
                        ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        records.computeIfAbsent(rs.getString(1) + "|" + rs.getString(2), k -> new ArrayList<>())
                                .add(rs.getString(3));
                    }
                }
                return new Evidence.Device(clientId, outbox, runs, unfinished, records);
            });
        }
    }
}
