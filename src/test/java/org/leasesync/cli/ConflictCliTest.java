package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import picocli.CommandLine;

/**
 * A real conflict made by two clients (two data directories) against the reference server on
 * loopback, seen and settled from the command line: {@code records --conflicts} prints both versions
 * in full with the differing fields marked, {@code resolve} says what it kept and where the other side
 * went (a conflict copy, restorable and deletable), and bad input gets a clear message and exit code.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConflictCliTest {

    @TempDir
    Path tmp;

    ReferenceServer server;
    Path deviceA;
    Path deviceB;

    record Result(int code, String out, String err) {}

    @BeforeEach
    void startServer() {
        server = ReferenceServer.start(ServerConfig.defaults());
        deviceA = tmp.resolve("a");
        deviceB = tmp.resolve("b");
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

    static Result on(Path dir, String command, String... more) {
        List<String> args = new ArrayList<>(
                List.of(command, "--user", "alice", "--scope", "course_sync", "--data-dir", dir.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    Result sync(Path dir) {
        Result r = on(dir, "sync", "--server", server.baseUrl(), "--token", server.tokenFor("alice"));
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        return r;
    }

    /** Device B edits c1 on version 1 while device A's edit made version 2: B's push is a conflict. */
    String makeConflict() {
        assertThat(on(
                                deviceA,
                                "edit",
                                "--id",
                                "c1",
                                "--payload",
                                "{\"title\":\"Algebra\",\"room\":\"R1\",\"seats\":30}")
                        .code())
                .isZero();
        sync(deviceA);
        sync(deviceB);
        assertThat(on(
                                deviceA,
                                "edit",
                                "--id",
                                "c1",
                                "--payload",
                                "{\"title\":\"Algebra II\",\"room\":\"R1\",\"seats\":30}")
                        .code())
                .isZero();
        sync(deviceA);
        assertThat(on(
                                deviceB,
                                "edit",
                                "--id",
                                "c1",
                                "--base-version",
                                "1",
                                "--payload",
                                "{\"title\":\"Algebra\",\"room\":\"R7\",\"seats\":30,\"notes\":\"" + "n".repeat(400)
                                        + "\"}")
                        .code())
                .isZero();
        sync(deviceB);
        Result list = on(deviceB, "records", "--conflicts", "--json");
        JsonNode conflicts = json(list.out()).get("conflicts");
        assertThat(conflicts).hasSize(1);
        return conflicts.get(0).get("changeId").asText();
    }

    static JsonNode json(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (java.io.IOException e) {
            throw new AssertionError(text, e);
        }
    }

    @Test
    void recordsConflictsPrintsBothVersionsInFullWithTheDifferingFieldsMarked() {
        String change = makeConflict();
        Result r = on(deviceB, "records", "--conflicts");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("alice|course_sync: 1 conflict to resolve, 0 conflict copies kept")
                .contains("conflict " + change + " on record c1:")
                .contains("yours: this device's edit, made ")
                .contains(", based on version 1")
                .contains("server's: version 2 on the server")
                // in full: the 400-character note is not shortened
                .contains("  !   \"notes\" : \"" + "n".repeat(400) + "\"")
                // marked: the fields that differ; unmarked: the field both have alike
                .contains("  !   \"title\" : \"Algebra\",")
                .contains("  !   \"title\" : \"Algebra II\",")
                .contains("  !   \"room\" : \"R7\",")
                .contains("      \"seats\" : 30")
                .contains("differs: title (changed), room (changed), notes (only in yours)")
                .contains("resolve: leasesync resolve --user alice --scope course_sync --change " + change);

        JsonNode c = json(on(deviceB, "records", "--conflicts", "--json").out())
                .get("conflicts")
                .get(0);
        assertThat(c.get("server").get("version").asLong()).isEqualTo(2);
        assertThat(c.get("mine").get("payload").asText()).contains("n".repeat(400));
        assertThat(c.get("differences").toString())
                .isEqualTo("[{\"path\":\"/title\",\"change\":\"changed\"},{\"path\":\"/room\",\"change\":\"changed\"},"
                        + "{\"path\":\"/notes\",\"change\":\"only_mine\"}]");
    }

    @Test
    void takingTheServersVersionKeepsTheEditAsACopyThatCanBeRestored() {
        String change = makeConflict();
        Result r = on(deviceB, "resolve", "--record", "c1", "--take-theirs");
        assertThat(r.code()).as(r.err()).isZero();
        Matcher m = Pattern.compile("is kept as conflict copy (\\d+) ").matcher(r.out());
        assertThat(m.find()).as(r.out()).isTrue();
        String copy = m.group(1);
        assertThat(r.out().strip())
                .isEqualTo("took the server's version of c1; your edit left the outbox; your edit is kept"
                        + " as conflict copy " + copy
                        + " (restore it: leasesync resolve --user alice --scope course_sync"
                        + " --restore-copy " + copy + "; delete it: leasesync resolve --user alice --scope course_sync"
                        + " --delete-copy " + copy + ")");

        Result listed = on(deviceB, "records", "--conflicts");
        assertThat(listed.out())
                .contains("0 conflicts to resolve, 1 conflict copy kept")
                .contains("conflict copy " + copy + " of record c1: your edit (based on version 1), made ")
                .contains("\"notes\" : \"" + "n".repeat(400) + "\"")
                .contains("--restore-copy " + copy);
        assertThat(on(deviceB, "records").out()).contains("1 conflict copy kept (restorable)");

        Result restored = on(deviceB, "resolve", "--restore-copy", copy);
        assertThat(restored.code()).as(restored.err()).isZero();
        assertThat(restored.out())
                .contains("restored conflict copy " + copy + " of c1 as a new edit (change ")
                .contains("based on version 2); the next sync pushes it");
        sync(deviceB);
        sync(deviceA);
        JsonNode a = json(on(deviceA, "records", "--json").out()).get("records").get(0);
        assertThat(a.get("version").asLong()).isEqualTo(3);
        assertThat(json(a.get("payload").asText()).get("room").asText()).isEqualTo("R7");
        assertThat(json(on(deviceB, "records", "--conflicts", "--json").out()).get("copies"))
                .isEmpty();
    }

    @Test
    void keepingMineKeepsTheServersVersionAsACopyAndDeletingItRemovesIt() {
        String change = makeConflict();
        Result r = on(deviceB, "resolve", "--change", change, "--keep-mine");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith("kept your edit: the next sync pushes it over the server's version 2 of c1;"
                        + " the server's version is kept as conflict copy ");
        JsonNode copy = json(on(deviceB, "records", "--conflicts", "--json").out())
                .get("copies")
                .get(0);
        assertThat(copy.get("side").asText()).isEqualTo("server");
        assertThat(copy.get("version").asLong()).isEqualTo(2);
        assertThat(json(copy.get("payload").asText()).get("title").asText()).isEqualTo("Algebra II");

        String id = copy.get("id").asText();
        Result deleted = on(deviceB, "resolve", "--delete-copy", id);
        assertThat(deleted.code()).as(deleted.err()).isZero();
        assertThat(deleted.out().strip()).isEqualTo("deleted conflict copy " + id + " of c1");
        Result again = on(deviceB, "resolve", "--delete-copy", id);
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.err().strip())
                .isEqualTo("leasesync: no conflict copy " + id + " of alice|course_sync"
                        + " (leasesync records --conflicts --user alice --scope course_sync lists them)");
    }

    @Test
    void editAndKeepPushesTheEditedVersion() {
        makeConflict();
        Result r = on(
                deviceB, "resolve", "--record", "c1", "--edit-and-keep", "{\"title\":\"Algebra II\",\"room\":\"R7\"}");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith("kept your edited version: the next sync pushes it over the server's version 2 of c1;");
        sync(deviceB);
        sync(deviceA);
        JsonNode a = json(on(deviceA, "records", "--json").out()).get("records").get(0);
        assertThat(a.get("payload").asText()).isEqualTo("{\"title\":\"Algebra II\",\"room\":\"R7\"}");
    }

    @Test
    void badInputIsNamedAndChangesNothing() {
        String change = makeConflict();
        Result unknown = on(deviceB, "resolve", "--record", "nope", "--keep-mine");
        assertThat(unknown.code()).isEqualTo(1);
        assertThat(unknown.err().strip())
                .isEqualTo("leasesync: no record nope in the local data of alice|course_sync"
                        + " (leasesync records --user alice --scope course_sync lists them)");
        assertThat(on(deviceA, "resolve", "--record", "c1", "--keep-mine").err().strip())
                .isEqualTo("leasesync: record c1 of alice|course_sync has no conflict to resolve");
        Result noChange = on(deviceB, "resolve", "--change", "not-a-change", "--take-theirs");
        assertThat(noChange.code()).isEqualTo(1);
        assertThat(noChange.err()).contains("leasesync: no conflict not-a-change in the outbox of alice|course_sync");
        Result both = on(deviceB, "resolve", "--keep-mine");
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err())
                .contains("give the conflict's --change CHANGE_ID or its --record RECORD_ID")
                .doesNotContain("Exception");
        Result notJson = on(deviceB, "resolve", "--record", "c1", "--edit-and-keep", "{title");
        assertThat(notJson.code()).isEqualTo(2);
        assertThat(notJson.err()).contains("--edit-and-keep").doesNotContain("at org.");
        Result copyWithChange = on(deviceB, "resolve", "--change", change, "--restore-copy", "1");
        assertThat(copyWithChange.code()).isEqualTo(2);
        assertThat(copyWithChange.err()).contains("--restore-copy names a conflict copy by its id alone");
        assertThat(json(on(deviceB, "records", "--conflicts", "--json").out()).get("conflicts"))
                .hasSize(1);
    }
}
