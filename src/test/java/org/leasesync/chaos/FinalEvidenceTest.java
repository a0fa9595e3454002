package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The evidence the chaos checker judges must be one consistent cut of the run, also when a client
 * process is still busy after the drain. The chaos run that found this had a process whose commands
 * (edits, then triggers) had waited behind its device's database while that changed hosts: they ran
 * after the drain had settled every key, and the process pushed and confirmed the edits between the
 * harness's read of the server's audit and its read of the device's outbox, so the checker found
 * them in neither and counted four lost edits that the server had applied once each.
 *
 * <p>Real processes: the reference server ({@code serve --audit}, H2 file) and one
 * {@code chaos-agent} (a full client runtime on an H2 data directory). Every step waits for an
 * answer; nothing sleeps.
 */
@ProcessTest
class FinalEvidenceTest {

    @Test
    void anEditPushedByAClientStillBusyAfterTheDrainIsNotCountedLost(@TempDir Path work) throws Exception {
        Path journals = Files.createDirectories(work.resolve("journals"));
        Path logs = Files.createDirectories(work.resolve("logs"));
        Path dataDir = Files.createDirectories(work.resolve("device-a"));
        ServerProcess server = ServerProcess.h2(
                JavaProcess.launcher("-Xmx160m"),
                freePort(),
                Files.createDirectories(work.resolve("server")),
                logs.resolve("server.log"));
        AgentProcess agent = null;
        try {
            server.start();
            AdminClient admin = new AdminClient(server.url(), server.token("admin"));
            List<String> cmd = new ArrayList<>(JavaProcess.launcher("-Xmx160m"));
            cmd.addAll(List.of(
                    "chaos-agent",
                    "--data-dir",
                    dataDir.toString(),
                    "--server",
                    server.url(),
                    "--token",
                    "alice=" + server.token("alice"),
                    "--token",
                    "bob=" + server.token("bob"),
                    "--journal",
                    journals.resolve("device-a-agent0-0.jsonl").toString(),
                    "--lease-ttl",
                    "3000ms",
                    "--call-timeout",
                    "2000ms"));
            AgentProcess a = AgentProcess.start(0, 0, cmd, Map.of(), logs.resolve("agent0.log"), hit -> {});
            agent = a;
            a.ready().get(120, TimeUnit.SECONDS);

            // An edit in the outbox, not pushed yet: a sync of it is still to come on this process.
            String changeId = a.send(command("edit").put("record", "r1").put("n", 1))
                    .get(60, TimeUnit.SECONDS)
                    .path("changeId")
                    .asText();
            assertThat(changeId).isNotEmpty();

            Evidence ev = FinalEvidence.read(
                    new FinalEvidence.Sources() {
                        @Override
                        public void stopClients() {
                            a.quit(20);
                        }

                        @Override
                        public List<JsonNode> audit() throws IOException {
                            List<JsonNode> audit = admin.audit();
                            // The late sync: whatever a live client does, it may do right after this read.
                            if (a.usable()) {
                                try {
                                    JsonNode settled = a.send(command("settle").put("timeoutMs", 60_000))
                                            .get(90, TimeUnit.SECONDS);
                                    assertThat(settled.path("settled").asBoolean())
                                            .as(settled.toString())
                                            .isTrue();
                                } catch (Exception e) {
                                    throw new IOException("the late sync failed", e);
                                }
                            }
                            return audit;
                        }

                        @Override
                        public Map<String, List<JsonNode>> serverRecords() {
                            return Map.of();
                        }

                        @Override
                        public Map<String, Evidence.Device> devices() {
                            return Map.of("device-a", LocalEvidence.read(dataDir));
                        }

                        @Override
                        public List<JsonNode> journals() throws IOException {
                            return JournalFiles.readAll(journals);
                        }
                    },
                    Duration.ofSeconds(3),
                    Duration.ofSeconds(3));

            assertThat(ev.events())
                    .as("the edit is journaled, so the checker judges it")
                    .anyMatch(e -> Checker.type(e, "edit")
                            && changeId.equals(e.path("changeId").asText()));
            List<ChaosReport.Violation> lost = new ArrayList<>();
            Checker.lost(ev, lost);
            assertThat(lost)
                    .as("edit %s: applied by the server, and gone from the outbox", changeId)
                    .isEmpty();
            // The client ended before it could sync: the edit is judged by the outbox, where it waits.
            assertThat(ev.devices().get("device-a").outbox().getOrDefault("alice|course_sync", Set.of()))
                    .contains(changeId);
        } finally {
            if (agent != null && agent.alive()) {
                agent.kill9();
            }
            server.stop();
        }
    }

    private static ObjectNode command(String name) {
        return Journal.JSON
                .createObjectNode()
                .put("cmd", name)
                .put("user", "alice")
                .put("scope", "course_sync");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
