package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;
import picocli.CommandLine;

/**
 * Data that must not silently diverge, from the command line (the real commands on a real data directory, a real
 * reference server on loopback, another device as a real client): {@code edit --base-version} saves
 * an edit on a record that changed since as a conflict (exit 5) and {@code resolve} settles it; a
 * conflict with a record deleted on the server says so in {@code records} (text and JSON) and
 * {@code resolve --keep-mine} says it restores it; after a server restore, {@code sync} and
 * {@code history} say in plain words that everything was downloaded again and why.
 */
class DivergenceCliTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    ReferenceServer server;
    LocalStore otherStore;
    ClientStack other;
    String dir;

    record Result(int code, String out, String err) {}

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults().withDataDir(tmp.resolve("server")));
        otherStore = LocalStore.openInMemory();
        other = new ClientStack(otherStore, server.baseUrl(), Map.of("alice", server.tokenFor("alice")));
        dir = tmp.resolve("data").toString();
    }

    @AfterEach
    void tearDown() {
        other.close();
        otherStore.close();
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

    Result cli(String command, String... args) {
        String[] all = new String[args.length + 7];
        all[0] = command;
        all[1] = "--user";
        all[2] = "alice";
        all[3] = "--scope";
        all[4] = "course_sync";
        all[5] = "--data-dir";
        all[6] = dir;
        System.arraycopy(args, 0, all, 7, args.length);
        return run(all);
    }

    Result sync() {
        Result r = cli("sync", "--server", server.baseUrl(), "--token", server.tokenFor("alice"));
        assertThat(r.code()).as("%s", r).isZero();
        return r;
    }

    JsonNode records() throws IOException {
        Result r = cli("records", "--json");
        assertThat(r.code()).as("%s", r).isZero();
        return JSON.readTree(r.out());
    }

    void otherSynced() throws Exception {
        assertThat(other.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void editWithTheBaseVersionSeenIsSavedAsAConflictWhenTheRecordChangedAndResolveSettlesIt() throws Exception {
        sync();
        otherSynced();
        other.edits.addEdit(ALICE, "course-1", "{\"title\":\"other device\"}", false);
        otherSynced();
        sync(); // version 2 arrives here

        Result saved = cli("edit", "--id", "course-1", "--payload", "{\"title\":\"mine\"}", "--base-version", "1");

        assertThat(saved.code()).as("%s", saved).isEqualTo(EditCommand.SAVED_AS_CONFLICT);
        assertThat(saved.out())
                .contains(
                        "as a conflict",
                        "you saw version 1 but this device now has version 2, changed " + "by another device",
                        "leasesync resolve --user alice --scope course_sync --change ");
        JsonNode entry = records().get("outbox").get(0);
        assertThat(entry.get("state").asText()).isEqualTo("conflict");
        assertThat(entry.get("baseVersion").asLong()).isEqualTo(1);
        assertThat(entry.get("serverVersion").asLong()).isEqualTo(2);
        assertThat(entry.get("serverDeleted").asBoolean()).isFalse();
        assertThat(entry.get("serverPayload").asText()).contains("other device");
        sync();
        otherSynced();
        assertThat(other.edits.record(ALICE, "course-1").orElseThrow().payloadJson())
                .contains("other device");

        Result resolved = cli("resolve", "--change", entry.get("changeId").asText(), "--keep-mine");
        assertThat(resolved.code()).as("%s", resolved).isZero();
        assertThat(resolved.out())
                .contains("kept your edit: the next sync pushes it over the server's version 2 of course-1");
        sync();
        otherSynced();
        assertThat(other.edits.record(ALICE, "course-1").orElseThrow().payloadJson())
                .contains("mine");

        Result matching = cli("edit", "--id", "course-1", "--payload", "{\"title\":\"again\"}", "--base-version", "3");
        assertThat(matching.code()).as("%s", matching).isZero();
        assertThat(matching.out()).contains("queued edit of course-1", "based on version 3");
        assertThat(cli("edit", "--id", "course-1", "--payload", "{}", "--base-version", "-1")
                        .code())
                .isEqualTo(2);
        assertThat(cli("resolve", "--change", "no-such-change", "--take-theirs").code())
                .isEqualTo(1);
    }

    @Test
    void aConflictWithARecordDeletedOnTheServerSaysSoAndKeepMineSaysItRestoresIt() throws Exception {
        sync();
        otherSynced();
        assertThat(cli("edit", "--id", "course-2", "--payload", "{\"title\":\"mine\"}", "--base-version", "1")
                        .code())
                .isZero();
        other.edits.addEdit(ALICE, "course-2", "{}", true);
        otherSynced();
        sync(); // the push comes back as a conflict

        JsonNode entry = records().get("outbox").get(0);
        assertThat(entry.get("state").asText()).isEqualTo("conflict");
        assertThat(entry.get("serverDeleted").asBoolean()).isTrue();
        assertThat(entry.get("serverVersion").asLong()).isEqualTo(2);
        assertThat(entry.get("serverPayload").isNull()).isTrue();
        assertThat(cli("records").out()).contains("deleted on the server (v2)").doesNotContain("v2 {}");

        Result kept = cli("resolve", "--change", entry.get("changeId").asText(), "--keep-mine");
        assertThat(kept.out())
                .contains("kept your edit: the next sync restores course-2, which was deleted on the server");
        sync();
        otherSynced();
        assertThat(other.edits.record(ALICE, "course-2").orElseThrow().deleted())
                .isFalse();
    }

    @Test
    void afterARestoreSyncAndHistorySayThatEverythingWasDownloadedAgainAndWhy() throws Exception {
        sync();
        int port = server.port();
        Path serverDir = tmp.resolve("server");
        Path backup = Files.createDirectories(tmp.resolve("backup"));
        server.close();
        copyFiles(serverDir, backup);
        server = ReferenceServer.start(
                ServerConfig.defaults().withDataDir(serverDir).withPort(port));
        assertThat(cli("edit", "--id", "course-lost", "--payload", "{\"title\":\"lost\"}")
                        .code())
                .isZero();
        sync();
        server.close();
        copyFiles(backup, serverDir);
        server = ReferenceServer.start(
                ServerConfig.defaults().withDataDir(serverDir).withPort(port));
        ClientStack.HTTP.connectionPool().evictAll();

        Result synced = sync();

        assertThat(synced.out())
                .contains(
                        "alice|course_sync synced",
                        "Downloaded everything again because the "
                                + "server's data went back to an earlier state (restored from a backup?): 1 record removed; the server no longer"
                                + " has an edit this device had sent (make it again if still needed).");
        Result history = run("history", "--key", "alice|course_sync", "--limit", "1", "--data-dir", dir);
        assertThat(history.out())
                .contains("succeeded", "note: Downloaded everything again because the server's data went back");
        JsonNode run = JSON.readTree(
                        run("history", "--key", "alice|course_sync", "--limit", "1", "--json", "--data-dir", dir)
                                .out())
                .get("runs")
                .get(0);
        assertThat(run.get("note").asText()).contains("went back to an earlier state");
        assertThat(run.get("error").isNull()).isTrue();
        assertThat(records().get("records").toString()).doesNotContain("course-lost");
    }

    static void copyFiles(Path from, Path to) {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
