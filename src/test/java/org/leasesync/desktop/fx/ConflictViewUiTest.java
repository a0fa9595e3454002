package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
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
 * The conflict view, clicked through with TestFX on the real app and the embedded server: a conflict
 * made by another device's change shows on its card ("1 conflict to resolve", Resolve); Resolve opens
 * both versions in full, side by side, the fields that differ marked, who made each and when; Take
 * server's asks first (Cancel changes nothing), then keeps the edit as a conflict copy, which Restore
 * makes an edit again.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConflictViewUiTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");
    static final String NOTES = "n".repeat(400);
    static final String MINE = "{\"title\":\"Algebra\",\"room\":\"R7\",\"notes\":\"" + NOTES + "\"}";

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
    void aConflictIsShownInFullSettledWithAConfirmationAndItsCopyRestored(FxRobot robot) throws Exception {
        synced();
        otherDevice("{\"title\":\"Algebra II\",\"room\":\"R1\",\"notes\":\"" + NOTES + "\"}");
        synced();
        JdbcLocalEdits edits = backend.runtime().edits();
        // the user saw version 1; version 2 arrived meanwhile: saved as a conflict
        assertThat(edits.saveEdit(ALICE, "course-1", MINE, false, OptionalLong.of(1))
                        .conflict())
                .isTrue();
        synced(); // the card's state is read again after a run

        waitUntil("the card says so", () -> text(robot, "#status-course_sync").equals("1 conflict to resolve"));
        waitUntil(
                "the card's state is conflicts",
                () -> assembly.viewModel()
                                .card(Scope.COURSE_SYNC)
                                .kindProperty()
                                .get()
                        == KeyStatus.Kind.CONFLICTS);
        waitUntil(
                "the card is styled as having conflicts",
                () -> robot.lookup("#card-course_sync").query().getStyleClass().contains("state-conflicts"));
        robot.clickOn("#resolve-course_sync");

        waitUntil(
                "both versions shown",
                () -> robot.lookup("#conflict-server").tryQuery().isPresent()
                        && !lines(robot, "#conflict-server").isEmpty());
        List<Label> mine = lines(robot, "#conflict-mine");
        List<Label> server = lines(robot, "#conflict-server");
        assertThat(mine)
                .extracting(Label::getText)
                .containsExactly(
                        "{",
                        "  \"title\" : \"Algebra\",",
                        "  \"room\" : \"R7\",",
                        "  \"notes\" : \"" + NOTES + "\"",
                        "}");
        assertThat(server)
                .extracting(Label::getText)
                .containsExactly(
                        "{",
                        "  \"title\" : \"Algebra II\",",
                        "  \"room\" : \"R1\",",
                        "  \"notes\" : \"" + NOTES + "\"",
                        "}");
        assertThat(mine)
                .extracting(l -> l.getStyleClass().contains("differs"))
                .containsExactly(false, true, true, false, false);
        assertThat(server)
                .extracting(l -> l.getStyleClass().contains("differs"))
                .containsExactly(false, true, true, false, false);
        assertThat(mine.get(3).isWrapText())
                .as("a long line wraps, never cut short")
                .isTrue();
        assertThat(text(robot, "#conflict-differs")).isEqualTo("Differs: title (changed), room (changed)");
        assertThat(text(robot, "#conflict-mine-caption"))
                .startsWith("This device · edited ")
                .endsWith(" · based on version 1");
        assertThat(text(robot, "#conflict-server-caption")).startsWith("Version 2 on the server · changed ");

        robot.clickOn("#conflict-take-theirs");
        waitUntil("asked", () -> robot.lookup("#conflict-confirm").query().isVisible());
        assertThat(text(robot, "#conflict-confirm-text"))
                .isEqualTo("Drop your edit of course-1 and take the server's version?"
                        + " Your edit is kept as a conflict copy, which you can restore.");
        robot.clickOn("#conflict-confirm-no");
        waitUntil("not asked", () -> !robot.lookup("#conflict-confirm").query().isVisible());
        assertThat(edits.outbox(ALICE))
                .as("cancel changes nothing")
                .singleElement()
                .satisfies(i -> assertThat(i.isConflict()).isTrue());

        robot.clickOn("#conflict-take-theirs");
        Button yes = robot.lookup("#conflict-confirm-yes").queryAs(Button.class);
        waitUntil("armed", () -> yes.isVisible() && !yes.isDisabled());
        robot.clickOn(yes);
        waitUntil("taken", () -> text(robot, "#conflict-message").startsWith("Took"));
        Matcher m = Pattern.compile(
                        "Took the server's version of course-1\\. Your edit is kept as conflict copy (\\d+)\\.")
                .matcher(text(robot, "#conflict-message"));
        assertThat(m.matches()).as(text(robot, "#conflict-message")).isTrue();
        assertThat(edits.outbox(ALICE)).isEmpty();
        waitUntil(
                "the card is calm again",
                () -> !robot.lookup("#resolve-course_sync").query().isVisible());
        assertThat(assembly.viewModel().card(Scope.COURSE_SYNC).kindProperty().get())
                .isNotEqualTo(KeyStatus.Kind.CONFLICTS);

        String copy = m.group(1);
        ListCell<?> listed = copyCell(robot, "#" + copy + " · course-1 · your edit (based on version 1) · set aside ");
        robot.clickOn(listed);
        robot.clickOn("#copy-restore");
        waitUntil("restored", () -> text(robot, "#conflict-message").startsWith("Restored"));
        assertThat(text(robot, "#conflict-message"))
                .isEqualTo("Restored conflict copy " + copy + " of course-1 as a new edit; the next sync pushes it.");
        assertThat(edits.outbox(ALICE)).singleElement().satisfies(i -> {
            assertThat(i.isPending()).isTrue();
            assertThat(i.payloadJson()).isEqualTo(MINE);
            assertThat(i.baseVersion()).isEqualTo(2);
        });
        waitUntil(
                "no copies left",
                () -> robot.lookup("#conflict-copies")
                        .queryListView()
                        .getItems()
                        .isEmpty());
    }

    static List<Label> lines(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(VBox.class).getChildren().stream()
                .map(Label.class::cast)
                .toList();
    }

    static ListCell<?> copyCell(FxRobot robot, String prefix) {
        waitUntil(
                "copy listed",
                () -> robot.lookup("#conflict-copies .list-cell")
                        .match((ListCell<?> c) ->
                                c.getText() != null && c.getText().startsWith(prefix))
                        .tryQuery()
                        .isPresent());
        return robot.lookup("#conflict-copies .list-cell")
                .match((ListCell<?> c) -> c.getText() != null && c.getText().startsWith(prefix))
                .query();
    }

    void synced() throws Exception {
        SubmitResult r = backend.runtime().coordinator().submit(TriggerRequest.of(ALICE, TaskSource.MANUAL));
        if (r instanceof SubmitResult.Started s) {
            assertThat(s.handle().completion().get(30, TimeUnit.SECONDS).status())
                    .isEqualTo(RunStatus.SUCCEEDED);
        } else {
            waitUntil("idle", () -> backend.runtime().coordinator().localRuns().isEmpty());
            synced();
        }
    }

    /** Another device makes version 2 of course-1 on the server. */
    void otherDevice(String payload) {
        HttpSyncRemote remote = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::tokenFor, "other-device");
        var r = remote.push(
                ALICE,
                new PushBatch(
                        "b",
                        UUID.randomUUID().toString(),
                        List.of(new OutboxEntry(
                                1,
                                UUID.randomUUID().toString(),
                                "course-1",
                                1,
                                false,
                                payload,
                                java.time.Instant.EPOCH))),
                1,
                "other");
        assertThat(r.results().get(0).applied()).isTrue();
    }
}
