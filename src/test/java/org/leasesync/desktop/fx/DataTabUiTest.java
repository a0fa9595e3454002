package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Button;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.PrettyJson;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushBatch;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The window's Data tab, clicked through with TestFX on the real app and the
 * embedded server: an edit is based on the version shown when the user selected the record, so
 * another device's version pulled before Save makes it a conflict (and the message says so) instead
 * of overwriting it; a conflict with a record deleted on the server shows "deleted on the server",
 * and the conflict view's Keep mine says it restores the record, and keeping it does.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class DataTabUiTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Backend backend;
    AppAssembly assembly;
    ReferenceServer server;

    @RegisterExtension
    final AppWindow window = new AppWindow();

    @Start
    void start(Stage stage) {
        var settings = UiTestSupport.settings(tmp.resolve("data"), Duration.ofHours(1), time);
        assembly = window.open(stage, settings);
        backend = window.backend();
        server = backend.embeddedServer().orElseThrow();
    }

    @Test
    void anEditOfARecordAnotherDeviceChangedAfterItWasSelectedIsSavedAsAConflict(FxRobot robot) throws Exception {
        openDataTab(robot);
        robot.clickOn(cell(robot, "#data-records", "course-1")); // the form now shows version 1
        otherDevice("course-1", 1, false, "{\"title\":\"other device\"}");
        synced();
        waitUntil(
                "version 2 arrived",
                () -> edits().record(ALICE, "course-1").orElseThrow().version() == 2);

        typePayload(robot, "{\"title\": \"mine\"}");
        robot.clickOn("#edit-save");

        waitUntil("saved", () -> text(robot, "#data-message").startsWith("Saved"));
        assertThat(text(robot, "#data-message"))
                .isEqualTo("Saved as a conflict: course-1 changed since you saw version 1"
                        + " (now version 2). Conflicts and copies… shows both versions to choose from.");
        JdbcLocalEdits.OutboxItem entry = edits().outbox(ALICE).get(0);
        assertThat(entry.isConflict()).isTrue();
        assertThat(entry.baseVersion()).isEqualTo(1);
        waitUntil(
                "conflict listed",
                () -> !robot.lookup("#data-outbox")
                        .queryAs(TableView.class)
                        .getItems()
                        .isEmpty());
        assertThat(cell(robot, "#data-outbox", "v2 {\"title\":\"other device\"}"))
                .isNotNull();
        synced();
        assertThat(serverPayload("course-1"))
                .as("the other device's version was not overwritten")
                .contains("other device");
    }

    /** A record's content: one line in the table, pretty-printed by Jackson in the detail pane and the tooltip. */
    @Test
    void theSelectedRecordIsPrettyPrintedBesideTheTableWhoseCellStaysOneLine(FxRobot robot) throws Exception {
        otherDevice(
                "course-1", 1, false, "{\"title\":\"Linear Algebra\",\"progress\":0.42,\"tags\":[\"math\",\"y1\"]}");
        openDataTab(robot);
        String compact = "{\"title\":\"Linear Algebra\",\"progress\":0.42,\"tags\":[\"math\",\"y1\"]}";
        TableCell<?, ?> c = cell(robot, "#data-records", compact);
        assertThat(c.getText()).doesNotContain("\n");
        robot.clickOn(c);
        String pretty =
                "{\n  \"title\" : \"Linear Algebra\",\n  \"progress\" : 0.42,\n  \"tags\" : [ \"math\", \"y1\" ]\n}";
        waitUntil(
                "detail shown",
                () -> robot.lookup("#data-record-detail")
                        .queryAs(javafx.scene.control.TextArea.class)
                        .getText()
                        .equals(pretty));
        assertThat(c.getTooltip().getText()).isEqualTo(pretty);
        assertThat(PrettyJson.format("not json {")).as("not JSON: shown as is").isEqualTo("not json {");
    }

    @Test
    void aConflictWithARecordDeletedOnTheServerSaysSoAndKeepMineRestoresIt(FxRobot robot) throws Exception {
        openDataTab(robot);
        robot.clickOn(cell(robot, "#data-records", "course-2"));
        typePayload(robot, "{\"title\": \"mine\"}");
        robot.clickOn("#edit-save");
        waitUntil("saved", () -> text(robot, "#data-message").equals("Saved locally. The next sync pushes it."));
        otherDevice("course-2", 1, true, "{}");
        synced();
        waitUntil("conflict", () -> edits().outbox(ALICE).stream().anyMatch(JdbcLocalEdits.OutboxItem::isConflict));

        robot.clickOn(cell(robot, "#data-outbox", "deleted on the server (v2)"));
        robot.clickOn("#resolve-conflict");
        waitUntil(
                "the conflict view",
                () -> robot.lookup("#conflict-keep-mine").tryQuery().isPresent()
                        && robot.lookup("#conflict-keep-mine")
                                .queryAs(Button.class)
                                .getText()
                                .equals("Keep mine (restores it)"));
        assertThat(text(robot, "#conflict-server-caption")).isEqualTo("Deleted on the server (version 2)");
        robot.clickOn("#conflict-keep-mine");

        waitUntil("kept", () -> text(robot, "#conflict-message").startsWith("Kept"));
        assertThat(text(robot, "#conflict-message"))
                .matches("Kept your version: the next sync restores course-2, which was"
                        + " deleted on the server\\. The server's version is kept as conflict copy \\d+\\.");
        synced();
        assertThat(edits().record(ALICE, "course-2").orElseThrow().deleted()).isFalse();
        assertThat(serverPayload("course-2")).contains("mine");
    }

    @Test
    void theSavedMessageClearsOnceTheEditIsPushedAndTheFormKeepsWhatWasPushed(FxRobot robot) throws Exception {
        openDataTab(robot);
        robot.clickOn(cell(robot, "#data-records", "course-1"));
        typePayload(robot, "{\"title\": \"pushed\"}");
        robot.clickOn("#edit-save");
        waitUntil("saved", () -> text(robot, "#data-message").equals("Saved locally. The next sync pushes it."));
        synced();
        waitUntil("pushed", () -> edits().outbox(ALICE).isEmpty());
        waitUntil(
                "the message, no longer true, cleared",
                () -> text(robot, "#data-message").isEmpty());
        assertThat(serverPayload("course-1")).contains("pushed");
        assertThat(robot.lookup("#edit-payload")
                        .queryAs(javafx.scene.control.TextArea.class)
                        .getText())
                .isEqualTo("{\"title\":\"pushed\"}");
    }

    @Test
    void takingTheServersVersionPutsItIntoTheFormInPlaceOfTheDiscardedEdit(FxRobot robot) throws Exception {
        openDataTab(robot);
        robot.clickOn(cell(robot, "#data-records", "course-1"));
        otherDevice("course-1", 1, false, "{\"title\":\"other device\"}");
        synced();
        waitUntil(
                "version 2 arrived",
                () -> edits().record(ALICE, "course-1").orElseThrow().version() == 2);
        typePayload(robot, "{\"title\": \"mine\"}");
        robot.clickOn("#edit-save");
        waitUntil("saved as a conflict", () -> text(robot, "#data-message").startsWith("Saved as a conflict"));
        String changeId = edits().outbox(ALICE).get(0).changeId();
        assertThat(edits().takeTheirs(ALICE, changeId)).isTrue();
        robot.clickOn("#data-reload");
        waitUntil(
                "the server's version in the form",
                () -> robot.lookup("#edit-payload")
                        .queryAs(javafx.scene.control.TextArea.class)
                        .getText()
                        .equals("{\"title\":\"other device\"}"));
        assertThat(text(robot, "#data-message")).isEmpty();

        // text typed after a save is the user's: a later reload never replaces it
        typePayload(robot, "{\"title\": \"still typing\"}");
        robot.clickOn("#data-reload");
        robot.sleep(300);
        assertThat(robot.lookup("#edit-payload")
                        .queryAs(javafx.scene.control.TextArea.class)
                        .getText())
                .isEqualTo("{\"title\": \"still typing\"}");
    }

    /** Types {@code json} into the edit form's content field, replacing what the selection put there. */
    /** Found in a new-user trial: the form kept Courses' record after switching to Messages, so Save put it there. */
    @Test
    void switchingScopeEmptiesTheEditFormAndItsMessage(FxRobot robot) throws Exception {
        otherDevice("course-1", 1, false, "{\"title\":\"Linear Algebra\"}");
        openDataTab(robot);
        robot.clickOn(cell(robot, "#data-records", "course-1"));
        waitUntil("form filled", () -> fieldText(robot, "#edit-id").equals("course-1"));
        robot.clickOn("#edit-save");
        waitUntil(
                "saved",
                () -> !robot.lookup("#data-message")
                        .queryAs(javafx.scene.control.Label.class)
                        .getText()
                        .isEmpty());
        robot.interact(() -> robot.lookup("#data-scope")
                .queryAs(javafx.scene.control.ChoiceBox.class)
                .setValue(org.leasesync.lease.Scope.MESSAGE_SYNC));
        waitUntil("form emptied", () -> fieldText(robot, "#edit-id").isEmpty());
        assertThat(robot.lookup("#edit-payload")
                        .queryAs(javafx.scene.control.TextArea.class)
                        .getText())
                .isEmpty();
        assertThat(robot.lookup("#data-message")
                        .queryAs(javafx.scene.control.Label.class)
                        .getText())
                .isEmpty();
    }

    static String fieldText(FxRobot robot, String query) {
        return robot.lookup(query).queryAs(javafx.scene.control.TextField.class).getText();
    }

    static void typePayload(FxRobot robot, String json) {
        robot.clickOn("#edit-payload");
        robot.interact(() -> robot.lookup("#edit-payload")
                .queryAs(javafx.scene.control.TextArea.class)
                .clear());
        robot.write(json);
        String typed = robot.lookup("#edit-payload")
                .queryAs(javafx.scene.control.TextArea.class)
                .getText();
        assertThat(typed).as("typed into the form").isEqualTo(json);
    }

    void openDataTab(FxRobot robot) throws Exception {
        synced();
        UiTestSupport.selectTab(robot, "tab-data");
        robot.clickOn("#data-reload");
        waitUntil(
                "records shown",
                () -> robot.lookup("#data-records")
                                .queryAs(TableView.class)
                                .getItems()
                                .size()
                        == edits().records(ALICE).size());
    }

    /** The cell of table {@code table} showing exactly {@code text}. */
    static TableCell<?, ?> cell(FxRobot robot, String table, String text) {
        waitUntil(
                "cell '" + text + "' in " + table,
                () -> robot.lookup(table + " .table-cell")
                        .match((TableCell<?, ?> c) -> text.equals(c.getText()))
                        .tryQuery()
                        .isPresent());
        return robot.lookup(table + " .table-cell")
                .match((TableCell<?, ?> c) -> text.equals(c.getText()))
                .query();
    }

    JdbcLocalEdits edits() {
        return backend.runtime().edits();
    }

    void synced() throws Exception {
        SubmitResult r = backend.runtime().coordinator().submit(TriggerRequest.of(ALICE, TaskSource.MANUAL));
        RunResult done;
        if (r instanceof SubmitResult.Started s) {
            done = s.handle().completion().get(30, TimeUnit.SECONDS);
        } else {
            waitUntil("idle", () -> backend.runtime().coordinator().localRuns().isEmpty());
            synced();
            return;
        }
        assertThat(done.status()).as("%s", done).isEqualTo(RunStatus.SUCCEEDED);
    }

    /** Another device changes a record on the server. */
    void otherDevice(String id, long base, boolean deleted, String payload) {
        HttpSyncRemote remote = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::tokenFor, "other-device");
        var r = remote.push(
                ALICE,
                new PushBatch(
                        "b",
                        UUID.randomUUID().toString(),
                        List.of(new OutboxEntry(
                                1, UUID.randomUUID().toString(), id, base, deleted, payload, java.time.Instant.EPOCH))),
                1,
                "other");
        assertThat(r.results().get(0).applied()).isTrue();
    }

    /** The record as the server has it, read by a fresh device. */
    String serverPayload(String id) {
        HttpSyncRemote remote = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::tokenFor, "reader");
        return remote.pull(ALICE, java.util.Optional.empty(), 1000, 1, "reader").records().stream()
                .filter(r -> r.id().equals(id))
                .findFirst()
                .orElseThrow()
                .payloadJson();
    }
}
