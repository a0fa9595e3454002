package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The chaos fault "killed during an upgrade" on its own: real server and agent processes, a data
 * directory left at client schema 2 with unsent edits, the agent killed with {@code kill -9} right
 * after the first and after the last statement of the migrations, started again: it opens the
 * directory and the edits reach the server.
 */
@Timeout(600)
@ProcessTest
class UpgradeFaultsTest {

    @Test
    void anAgentKilledAfterTheFirstOrTheLastMigrationStatementOpensAgainAndPushesItsEdits(@TempDir Path work)
            throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        ChaosHarness.Settings s = new ChaosHarness.Settings(
                1,
                1,
                2,
                work,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                JavaProcess.launcher("-Xmx160m"),
                new PrintStream(progress, true, StandardCharsets.UTF_8),
                null);
        Files.createDirectories(work.resolve("journals"));
        Files.createDirectories(work.resolve("logs"));
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        ServerProcess server = ServerProcess.h2(
                s.javaCommand(),
                port,
                Files.createDirectories(work.resolve("server")),
                work.resolve("logs").resolve("server.log"));
        try (Journal journal = new Journal(work.resolve("journals").resolve("harness.jsonl"))) {
            server.start();
            UpgradeFaults upgrades = new UpgradeFaults(s, server, journal);
            int statements = upgrades.statements();
            assertThat(statements)
                    .as("statements of the migrations after schema 2")
                    .isGreaterThan(25);

            upgrades.killDuringMigration("alice", "backup", 1, 2);
            awaitKills(upgrades, 1);
            upgrades.killDuringMigration("bob", "course_sync", statements, 1);
            upgrades.drain();

            assertThat(upgrades.kills()).isEqualTo(2);
            assertThat(upgrades.violations())
                    .as(progress.toString(StandardCharsets.UTF_8))
                    .isEmpty();
            List<JsonNode> events = JournalFiles.readAll(work.resolve("journals"));
            assertThat(events.stream()
                            .filter(e -> Checker.type(e, "kill"))
                            .map(e -> e.path("why").asText()))
                    .containsExactly("migration statement 1", "migration statement " + statements);
            assertThat(events.stream()
                            .filter(e -> Checker.type(e, "kill"))
                            .map(e -> e.path("paused").asBoolean()))
                    .as("each agent was stopped at its statement when it was killed")
                    .containsExactly(true, true);
            assertThat(events.stream()
                            .filter(e -> Checker.type(e, "upgrade-opened"))
                            .map(e -> e.path("device").asText()))
                    .containsExactly("device-u1", "device-u2");
            AdminClient admin = new AdminClient(server.url(), server.token("admin"));
            assertThat(recordIds(admin, server, "alice", "backup")).contains("device-u1-r1", "device-u1-r2");
            assertThat(recordIds(admin, server, "bob", "course_sync")).contains("device-u2-r1");
            Map<String, Evidence.Device> devices = upgrades.evidence();
            assertThat(devices).containsOnlyKeys("device-u1", "device-u2");
            assertThat(devices.get("device-u1").outbox().getOrDefault("alice|backup", java.util.Set.of()))
                    .isEmpty();
        } finally {
            server.stop();
        }
    }

    private static void awaitKills(UpgradeFaults upgrades, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
        while (upgrades.kills() < n && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        // and the episode itself ended, so the next one is not skipped
        while (upgrades.running() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    private static List<String> recordIds(AdminClient admin, ServerProcess server, String user, String scope)
            throws java.io.IOException {
        return admin.records(server.url(), server.token(user), user, scope).stream()
                .map(r -> r.path("id").asText())
                .toList();
    }
}
