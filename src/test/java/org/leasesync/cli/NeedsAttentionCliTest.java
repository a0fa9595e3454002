package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.SyncSettings;
import org.leasesync.testing.ClientStack;
import picocli.CommandLine;

/**
 * A key in the fail-closed state, from the command line: {@code status} and {@code sync} show the
 * reason, the unconfirmed push (idempotency key and change ids) and the commands that resolve it;
 * {@code sync --check-again} resolves it by asking the server — without sending the push again.
 */
class NeedsAttentionCliTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    ReferenceServer server;

    record Result(int code, String out, String err) {}

    @BeforeEach
    void startServer() {
        server = ReferenceServer.start(ServerConfig.defaults());
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = LeasesyncCommand.commandLine(new LeasesyncCommand(o -> 0));
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    /** A push the server applied but answered too late, and never confirmed within the client's questions. */
    List<String> needsAttentionAfterAnUnconfirmablePush(Path dir) throws Exception {
        try (LocalStore store = LocalStore.openFile(dir);
                ClientStack client = new ClientStack(
                        store,
                        server.baseUrl(),
                        Map.of("alice", server.tokenFor("alice")),
                        TimeSource.system(),
                        new SyncSettings(500, 100, 2, Duration.ofMillis(10), Duration.ofHours(24)),
                        new HttpSettings(Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(5)))) {
            assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
            List<String> ids = List.of(
                    client.edits.addEdit(ALICE, "late-1", "{\"title\":\"L1\"}", false),
                    client.edits.addEdit(ALICE, "late-2", "{\"title\":\"L2\"}", false));
            server.faults().setDelayAfterApply(Duration.ofSeconds(2));
            assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.NEEDS_ATTENTION);
            server.faults().setDelayAfterApply(Duration.ZERO);
            return ids;
        }
    }

    @Test
    void statusAndSyncShowTheUnconfirmedPushAndHowToResolveItAndCheckAgainResolvesIt() throws Exception {
        Path dir = tmp.resolve("data");
        List<String> changeIds = needsAttentionAfterAnUnconfirmablePush(dir);
        Checkpoint cp;
        try (LocalStore store = LocalStore.openFile(dir)) {
            cp = store.history().checkpoint(ALICE).orElseThrow();
        }
        String idempotencyKey = cp.idempotencyKey().orElseThrow();
        assertThat(cp.pushChangeIds()).containsExactlyElementsOf(changeIds);
        String resolve =
                "leasesync sync --user alice --scope course_sync --data-dir " + dir + " --server URL --token TOKEN";

        Result status = run("status", "--data-dir", dir.toString());
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out())
                .contains(
                        "needs attention (nothing is retried automatically):",
                        "alice|course_sync: a push was sent but its result could not be confirmed",
                        "unconfirmed push: idempotency key " + idempotencyKey + ", 2 changes: "
                                + String.join(", ", changeIds),
                        resolve + " --check-again",
                        resolve + " --discard-unconfirmed");

        JsonNode json = new ObjectMapper()
                .readTree(run("status", "--json", "--data-dir", dir.toString()).out());
        JsonNode attention = json.get("needsAttention").get(0);
        assertThat(attention.get("key").asText()).isEqualTo("alice|course_sync");
        assertThat(attention.get("reason").asText()).contains("could not be confirmed");
        assertThat(attention.get("idempotencyKey").asText()).isEqualTo(idempotencyKey);
        assertThat(attention.get("changeIds")).extracting(JsonNode::asText).containsExactlyElementsOf(changeIds);
        assertThat(attention.get("checkAgain").asText()).isEqualTo(resolve + " --check-again");
        assertThat(attention.get("discardUnconfirmed").asText()).isEqualTo(resolve + " --discard-unconfirmed");

        String[] sync = {
            "sync",
            "--user",
            "alice",
            "--scope",
            "course_sync",
            "--server",
            server.baseUrl(),
            "--token",
            server.tokenFor("alice"),
            "--data-dir",
            dir.toString()
        };
        Result blocked = run(sync);
        assertThat(blocked.code()).as(blocked.out() + blocked.err()).isEqualTo(4);
        assertThat(blocked.out())
                .contains(
                        "alice|course_sync needs attention:",
                        "idempotency key " + idempotencyKey,
                        String.join(", ", changeIds),
                        "--check-again",
                        "--discard-unconfirmed");

        long pushes = server.stats().pushes();
        Result checked = run(concat(sync, "--check-again"));
        assertThat(checked.code()).as(checked.out() + checked.err()).isZero();
        assertThat(checked.out()).contains("alice|course_sync synced");
        assertThat(server.stats().pushes())
                .as("confirmed by asking, not by sending again")
                .isEqualTo(pushes);
        changeIds.forEach(id ->
                assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1));
        try (LocalStore store = LocalStore.openFile(dir)) {
            assertThat(new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(ALICE))
                    .isEmpty();
        }
        assertThat(run("status", "--data-dir", dir.toString()).out()).doesNotContain("needs attention");
    }

    static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
