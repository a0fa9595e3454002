package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.DamagedFiles;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ProcessTest;

/**
 * A damaged local database file, met by every command as a real process: exit code 1, one plain
 * message naming the file and what to do, no stack trace, and the file byte for byte as it was —
 * never repaired, replaced by an empty database, renamed or deleted.
 */
@ProcessTest
class DamagedDatabaseTest {

    static final TaskKey ALICE = TaskKey.of("alice", "backup");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    /** A data directory with three local edits waiting in the outbox, closed cleanly. */
    static Path dataDirWithEdits(Path dir) {
        try (LocalStore store = LocalStore.openFile(dir)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            for (int i = 0; i < 3; i++) {
                edits.addEdit(ALICE, "settings-" + i, "{\"theme\":\"dark\",\"n\":" + i + "}", false);
            }
        }
        return dir;
    }

    static Set<String> filesIn(Path dir) throws Exception {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p).toString())
                    .collect(Collectors.toSet());
        }
    }

    @ParameterizedTest
    @EnumSource(DamagedFiles.class)
    void everyCommandRefusesADamagedDatabaseWithExitCode1AndLeavesItByteForByteUnchanged(DamagedFiles damage)
            throws Exception {
        Path dir = dataDirWithEdits(tmp.resolve("data"));
        Path file = dir.resolve("leasesync.mv.db");
        damage.damage(file);
        String hash = DamagedFiles.sha256(file);
        Set<String> before = filesIn(dir);

        String d = dir.toString();
        Map<String, List<String>> commands = new LinkedHashMap<>();
        commands.put(
                "sync",
                List.of(
                        "sync",
                        "--user",
                        "alice",
                        "--scope",
                        "backup",
                        "--server",
                        "http://127.0.0.1:1",
                        "--token",
                        "t",
                        "--data-dir",
                        d));
        commands.put(
                "edit",
                List.of(
                        "edit",
                        "--user",
                        "alice",
                        "--scope",
                        "backup",
                        "--id",
                        "x",
                        "--payload",
                        "{}",
                        "--data-dir",
                        d));
        commands.put("status", List.of("status", "--data-dir", d));
        commands.put("history", List.of("history", "--key", "alice|backup", "--data-dir", d));
        commands.put("records", List.of("records", "--user", "alice", "--scope", "backup", "--data-dir", d));
        Map<String, CliProcess> running = new LinkedHashMap<>();
        for (var c : commands.entrySet()) {
            running.put(c.getKey(), CliProcess.start(tmp, c.getKey(), c.getValue()));
        }
        for (var p : running.entrySet()) {
            CliProcess.Result r = p.getValue().await(90);
            assertThat(r.code()).as(p.getKey() + ": " + r.both()).isEqualTo(1);
            assertThat(r.err())
                    .as(p.getKey())
                    .startsWith("leasesync: the local database " + file + " is damaged: ")
                    .contains(
                            "leasesync did not open it and changed nothing",
                            "Restore it from a backup",
                            "move it aside (keep the copy")
                    .doesNotContain("\tat ", "Exception");
            // a command that writes the data directory also says where its log files are
            assertThat(r.err()
                            .lines()
                            .filter(l -> !l.equals("leasesync: details are in the log files in "
                                    + dir.toAbsolutePath().resolve("logs"))))
                    .as(p.getKey() + ": one line on stderr")
                    .hasSize(1);
            assertThat(r.out()).as(p.getKey()).isEmpty();
        }

        assertThat(DamagedFiles.sha256(file))
                .as("the damaged file, byte for byte")
                .isEqualTo(hash);
        Set<String> after = filesIn(dir);
        after.removeIf(f -> f.startsWith("logs/")); // sync and edit log the details to the log file
        assertThat(after)
                .as("no database re-created, renamed, locked or traced")
                .isEqualTo(before);
        assertThat(org.leasesync.testing.LogFiles.read(dir)).contains(file + " is damaged");
    }
}
