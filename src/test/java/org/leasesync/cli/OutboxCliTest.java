package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import picocli.CommandLine;

/**
 * From the command line: {@code edit} refuses an edit that can never be pushed
 * (with the limit) and reads large content from {@code --payload-file} or standard input; an edit
 * the server refuses for good is set aside by {@code sync}, which says so, while the others are
 * pushed; {@code outbox list} shows why, {@code outbox discard} and {@code send-again} are the way out.
 */
class OutboxCliTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    ReferenceServer server;
    Path dir;

    record Result(int code, String out, String err) {}

    @BeforeEach
    void startServer() {
        server = ReferenceServer.start(ServerConfig.defaults());
        dir = tmp.resolve("data");
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

    Result edit(String... more) {
        List<String> args = new java.util.ArrayList<>(
                List.of("edit", "--user", "alice", "--scope", "course_sync", "--data-dir", dir.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    Result sync(String... more) {
        List<String> args = new java.util.ArrayList<>(List.of(
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
                dir.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    Result outbox(String sub, String... more) {
        List<String> args = new java.util.ArrayList<>(
                List.of("outbox", sub, "--user", "alice", "--scope", "course_sync", "--data-dir", dir.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    static String blob(int chars) {
        return "{\"blob\":\"" + "x".repeat(chars) + "\"}";
    }

    @Test
    void anEditThatCanNeverBePushedIsRefusedWithTheLimitAndNothingIsCreated() throws Exception {
        Path big = tmp.resolve("big.json");
        Files.writeString(big, blob(6 * 1024 * 1024));
        Result r = edit("--id", "huge", "--payload-file", big.toString());
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err())
                .contains(
                        "leasesync: --payload-file " + big + " is refused: its content has a string"
                                + " longer than 5,238,784 characters; a record may have at most 5,238,784 bytes (5 MiB less 4 KiB)");
        assertThat(dir).as("refused before the data directory is touched").doesNotExist();

        Result missing =
                edit("--id", "x", "--payload-file", tmp.resolve("nope.json").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("--payload-file " + tmp.resolve("nope.json") + ": no such file");
        Path array = Files.writeString(tmp.resolve("array.json"), "[1, 2]");
        assertThat(edit("--id", "x", "--payload-file", array.toString()).err())
                .contains("--payload-file " + array + " must be a JSON object");
        assertThat(edit("--id", "x", "--payload", "{}", "--payload-file", array.toString())
                        .err())
                .contains("give exactly one of --payload JSON, --payload-file PATH or --delete");
    }

    @Test
    void largeContentComesFromAFileOrStandardInput() throws Exception {
        Path file = Files.writeString(
                tmp.resolve("course.json"),
                "{\n  \"title\": \"Topology\",\n  \"notes\": \"" + "n".repeat(300_000) + "\"\n}\n");
        assertThat(edit("--id", "from-file", "--payload-file", file.toString()).code())
                .isZero();
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream("{\"title\":\"piped\"}".getBytes(StandardCharsets.UTF_8)));
            Result r = edit("--id", "from-stdin", "--payload-file", "-");
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).contains("queued edit of from-stdin");
        } finally {
            System.setIn(stdin);
        }
        assertThat(sync().code()).isZero();
        try (LocalStore store = LocalStore.openFile(dir)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            assertThat(edits.record(ALICE, "from-file").orElseThrow().payloadJson())
                    .startsWith("{\"title\":\"Topology\",\"notes\":\"nnn");
            assertThat(edits.record(ALICE, "from-stdin").orElseThrow().payloadJson())
                    .isEqualTo("{\"title\":\"piped\"}");
        }
    }

    @Test
    void anEditTheServerRefusesIsSetAsideShownWithWhyAndCanBeDiscarded() throws Exception {
        String big;
        try (LocalStore store = LocalStore.openFile(dir)) {
            big = insertRaw(store, "huge", blob(5 * 1024 * 1024)); // as an older version let it in
        }
        assertThat(edit("--id", "course-9", "--payload", "{\"title\":\"Topology\"}")
                        .code())
                .isZero();

        Result synced = sync();
        assertThat(synced.code()).as(synced.err()).isZero();
        assertThat(synced.out())
                .contains("alice|course_sync synced")
                .contains("1 local edit of alice|course_sync was refused by the sync server for good and set aside "
                        + "(the others were pushed): see `leasesync outbox list`");
        Result again = sync("--json");
        JsonNode j = new ObjectMapper().readTree(again.out());
        assertThat(j.path("result").asText()).isEqualTo("succeeded");
        assertThat(j.path("setAside").asInt()).isEqualTo(1);

        Result list = outbox("list");
        assertThat(list.code()).isZero();
        assertThat(list.out())
                .contains(
                        "alice|course_sync: 1 outbox entry, 1 set aside",
                        big,
                        "huge",
                        "rejected",
                        "the edit of record 'huge' cannot be sent: its content is 5,242,891 bytes; a record may have at most"
                                + " 5,238,784 bytes (5 MiB less 4 KiB)",
                        "leasesync outbox discard --user alice " + "--scope course_sync --data-dir " + dir + " CHANGE");
        JsonNode listed = new ObjectMapper()
                .readTree(outbox("list", "--json").out())
                .path("outbox")
                .get(0);
        assertThat(listed.path("changeId").asText()).isEqualTo(big);
        assertThat(listed.path("state").asText()).isEqualTo("rejected");
        assertThat(listed.path("setAside").asBoolean()).isTrue();
        assertThat(listed.path("rejectedReason").asText()).contains("a record may have at most 5,238,784 bytes");

        Result tooBig = outbox("send-again", big);
        assertThat(tooBig.code()).isEqualTo(1);
        assertThat(tooBig.err()).contains("cannot be synced: its content is 5,242,891 bytes");

        Result discarded = outbox("discard", big);
        assertThat(discarded.code()).as(discarded.err()).isZero();
        assertThat(discarded.out()).contains("discarded the set-aside edit of huge (change " + big + ")");
        assertThat(outbox("list").out()).contains("alice|course_sync: 0 outbox entries");
        Result gone = outbox("discard", big);
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).contains("leasesync: alice|course_sync has no outbox entry with change id " + big);
    }

    @Test
    void aPendingEditIsNotDiscardedHereAndAnEntryInAnUnknownStateCanBe() throws Exception {
        assertThat(edit("--id", "mine-1", "--payload", "{\"a\":1}").code()).isZero();
        String pending;
        String damaged;
        try (LocalStore store = LocalStore.openFile(dir)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            pending = edits.outbox(ALICE).get(0).changeId();
            damaged = insertRaw(store, "mine-2", "{\"b\":2}");
            store.database()
                    .transaction(
                            "damage",
                            c -> c.createStatement()
                                    .executeUpdate(
                                            "UPDATE outbox SET state = 'sending' WHERE change_id = '" + damaged + "'"));
        }
        Result r = outbox("discard", pending);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("is pending, not set aside; the next sync pushes it");
        assertThat(outbox("list").out()).contains("unknown ('sending')");
        assertThat(outbox("send-again", damaged).code()).isZero();
        assertThat(sync().code()).isZero();
        assertThat(outbox("list").out()).contains("0 outbox entries");
    }

    static String insertRaw(LocalStore store, String recordId, String payload) {
        String changeId = java.util.UUID.randomUUID().toString();
        store.database().transaction("insert a raw outbox entry", c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (user_id, scope, change_id, record_id,"
                    + " base_version, deleted, payload, created_at_ms, state) VALUES ('alice', 'course_sync', ?, ?, 0,"
                    + " FALSE, ?, 0, 'pending')")) {
                ps.setString(1, changeId);
                ps.setString(2, recordId);
                ps.setString(3, payload);
                ps.executeUpdate();
            }
            return null;
        });
        return changeId;
    }
}
