package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The local database held by a leasesync process that hangs ({@code kill -STOP}): other commands
 * give up within {@code --db-open-timeout}, name the file and the holder's pid, say what to do,
 * exit 1 and change nothing.
 */
@ProcessTest
class FrozenHolderTest {

    static final TaskKey ALICE = TaskKey.of("alice", "backup");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void commandsGiveUpOnAFrozenHolderWithinTheOpenTimeoutNamingItsPidAndChangeNothing() throws Exception {
        Path dir = tmp.resolve("data");
        Path file = dir.resolve("leasesync.mv.db");
        try (LocalStore store = LocalStore.openFile(dir)) {
            new JdbcLocalEdits(store.database(), TimeSource.system()).addEdit(ALICE, "settings", "{\"a\":1}", false);
        }
        List<String> cmd = JavaProcess.jvm();
        cmd.addAll(List.of("-cp", JavaProcess.classPath(), HoldDatabaseMain.class.getName(), dir.toString()));
        Process holder = new ProcessBuilder(cmd)
                .redirectError(tmp.resolve("holder.err").toFile())
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("READY");
            signal("STOP", holder.pid());
            byte[] before = Files.readAllBytes(file);

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
                            d,
                            "--db-open-timeout",
                            "2s"));
            commands.put(
                    "edit",
                    List.of(
                            "edit",
                            "--user",
                            "alice",
                            "--scope",
                            "backup",
                            "--id",
                            "y",
                            "--payload",
                            "{}",
                            "--data-dir",
                            d,
                            "--db-open-timeout",
                            "2s"));
            Map<String, CliProcess> running = new LinkedHashMap<>();
            for (var c : commands.entrySet()) {
                running.put(c.getKey(), CliProcess.start(tmp, c.getKey(), c.getValue()));
            }
            // the read-only commands take the timeout from the environment
            running.put(
                    "status",
                    CliProcess.start(
                            tmp,
                            "status",
                            Map.of("LEASESYNC_DB_OPEN_TIMEOUT", "2s"),
                            List.of("status", "--data-dir", d)));
            for (var p : running.entrySet()) {
                CliProcess.Result r = p.getValue().await(60);
                assertThat(r.code()).as(p.getKey() + ": " + r.both()).isEqualTo(1);
                assertThat(r.err())
                        .as(p.getKey())
                        .startsWith("leasesync: the local database " + file + " is held by another leasesync process "
                                + "(pid " + holder.pid() + ") that has not answered for 2 s (stopped or hung?)")
                        .contains("nothing was changed", "kill -CONT " + holder.pid())
                        .doesNotContain("\tat ", "Exception");
                // a command that writes the data directory also says where its log files are
                assertThat(r.err().lines().filter(l -> !l.startsWith("leasesync: details are in the log files in ")))
                        .as(p.getKey())
                        .hasSize(1);
                assertThat(r.millis())
                        .as(p.getKey() + " gave up after the 2 s open timeout, not the 40 s default")
                        .isLessThan(30_000);
            }
            assertThat(Files.readAllBytes(file))
                    .as("the database file, byte for byte")
                    .isEqualTo(before);
        } finally {
            signal("CONT", holder.pid());
            holder.getOutputStream().close();
            if (!holder.waitFor(30, TimeUnit.SECONDS)) {
                holder.destroyForcibly().waitFor();
            }
        }
        try (LocalStore store = LocalStore.openFile(dir)) {
            assertThat(new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(ALICE))
                    .as("the edit made while the holder was frozen was refused, not half-written")
                    .extracting(JdbcLocalEdits.OutboxItem::recordId)
                    .containsExactly("settings");
        }
    }

    static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
    }
}
