package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javafx.application.Platform;
import javafx.geometry.Rectangle2D;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Labeled;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.WindowGeometry;
import org.leasesync.lease.Scope;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The window keeps its size, position and maximized state in settings.json, restores a position only
 * when it is on a screen now, has a minimum size at which no card text or button is cut short, and
 * opens the QA tools beside it as an ordinary window.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class WindowGeometryUiTest {

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Backend backend;
    AppAssembly assembly;
    Stage stage;

    @Start
    void start(Stage ignored) {
        // each test opens its own window on a data directory it prepares
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        if (assembly != null) {
            robot.interact(() -> {
                assembly.close();
                stage.hide();
            });
            backend.close();
        }
    }

    Path data() {
        return tmp.resolve("data");
    }

    void open(FxRobot robot, String settingsJson) throws Exception {
        Files.createDirectories(data());
        if (settingsJson != null) {
            Files.writeString(data().resolve(SettingsFile.NAME), settingsJson);
        }
        var settings = UiTestSupport.settings(data(), Duration.ofHours(1), time);
        backend = Backend.start(settings);
        robot.interact(() -> {
            stage = new Stage();
            assembly = new AppAssembly(backend, settings, stage, Platform::runLater);
            assembly.show();
        });
    }

    void close(FxRobot robot) {
        robot.interact(() -> {
            assembly.close();
            stage.hide();
        });
        backend.close();
        assembly = null;
    }

    JsonNode saved() throws Exception {
        return new ObjectMapper().readTree(Files.readString(data().resolve(SettingsFile.NAME)));
    }

    @Test
    void sizeAndPositionAreKeptAcrossStartsWithTheOtherSettingsKeys(FxRobot robot) throws Exception {
        open(
                robot,
                "{\"notifications\": false, \"someFutureKey\": {\"a\": 1},"
                        + " \"window\": {\"x\": 40, \"y\": 30, \"width\": 900, \"height\": 600, \"maximized\": false}}");
        assertThat(stage.getX()).isEqualTo(40);
        assertThat(stage.getY()).isEqualTo(30);
        assertThat(stage.getWidth()).isEqualTo(900);
        assertThat(stage.getHeight()).isEqualTo(600);
        assertThat(stage.getMinWidth()).isEqualTo(WindowGeometry.MIN_WIDTH);
        assertThat(stage.getMinHeight()).isEqualTo(WindowGeometry.MIN_HEIGHT);
        robot.interact(() -> {
            stage.setX(70);
            stage.setY(50);
            stage.setWidth(1000);
            stage.setHeight(650);
        });
        close(robot);

        JsonNode w = saved().get("window");
        assertThat(w.get("x").asDouble()).isEqualTo(70);
        assertThat(w.get("y").asDouble()).isEqualTo(50);
        assertThat(w.get("width").asDouble()).isEqualTo(1000);
        assertThat(w.get("height").asDouble()).isEqualTo(650);
        assertThat(w.get("maximized").asBoolean()).isFalse();
        assertThat(saved().get("someFutureKey").get("a").asInt()).isEqualTo(1);
        assertThat(saved().get("notifications").asBoolean()).isFalse();

        open(robot, null);
        assertThat(stage.getX()).isEqualTo(70);
        assertThat(stage.getWidth()).isEqualTo(1000);
    }

    @Test
    void aPositionOnNoScreenNowIsNotRestoredAndATooSmallSizeIsRaisedToTheMinimum(FxRobot robot) throws Exception {
        Rectangle2D screen = Screen.getPrimary().getBounds();
        double farRight = screen.getMaxX() + 3000;
        open(
                robot,
                "{\"window\": {\"x\": " + farRight
                        + ", \"y\": 40, \"width\": 300, \"height\": 200, \"maximized\": false}}");
        assertThat(Screen.getScreensForRectangle(stage.getX(), stage.getY(), 200, 40))
                .as("on a screen")
                .isNotEmpty();
        assertThat(stage.getWidth()).isEqualTo(WindowGeometry.MIN_WIDTH);
        assertThat(stage.getHeight()).isEqualTo(WindowGeometry.MIN_HEIGHT);
    }

    @Test
    void theMaximizedStateIsRestoredAndAMalformedEntryIsIgnored(FxRobot robot) throws Exception {
        open(robot, "{\"window\": {\"x\": 10, \"y\": 10, \"width\": 800, \"height\": 500, \"maximized\": true}}");
        assertThat(stage.isMaximized()).isTrue();
        close(robot);
        JsonNode w = saved().get("window");
        assertThat(w.get("maximized").asBoolean()).isTrue();
        assertThat(w.get("width").asDouble()).as("the size it returns to").isEqualTo(800);

        Files.writeString(
                data().resolve(SettingsFile.NAME), "{\"window\": {\"x\": \"left\"}, \"startAtLogin\": false}");
        open(robot, null);
        assertThat(stage.getWidth()).isEqualTo(WindowGeometry.DEFAULT_WIDTH);
        assertThat(assembly.desktopViewModel().noticeProperty().get())
                .as("the file was not moved aside")
                .isEmpty();
    }

    @Test
    void atTheMinimumSizeNoCardTextOrButtonIsCutShort(FxRobot robot) throws Exception {
        open(robot, null);
        robot.interact(() -> {
            stage.setWidth(WindowGeometry.MIN_WIDTH);
            stage.setHeight(WindowGeometry.MIN_HEIGHT);
        });
        for (Scope s : Scope.values()) {
            waitUntil(
                    "card " + s + " settled",
                    () -> !text(robot, "#status-" + s.wireName()).startsWith("Loading"));
        }
        // show the buttons of a running card too: Cancel and "Sync again after this" appear while a sync runs
        backend.embeddedServer().orElseThrow().faults().setLatency(Duration.ofMillis(1500));
        robot.clickOn("#sync-course_sync");
        waitUntil("running", () -> text(robot, "#status-course_sync").startsWith("Syncing"));
        robot.interact(() -> stage.getScene().getRoot().layout());
        List<String> cut = new ArrayList<>();
        robot.interact(() -> {
            for (Scope s : Scope.values()) {
                truncated(stage.getScene().lookup("#card-" + s.wireName()), cut);
            }
            truncated(stage.getScene().lookup(".top-bar"), cut);
        });
        assertThat(cut)
                .as(
                        "labels and buttons showing an ellipsis at %s x %s",
                        WindowGeometry.MIN_WIDTH, WindowGeometry.MIN_HEIGHT)
                .isEmpty();
    }

    /** Collects the visible Labeled nodes whose skin shows a shortened text (JavaFX ends it with an ellipsis). */
    static void truncated(Node n, List<String> out) {
        if (n == null || !n.isVisible()) {
            return;
        }
        if (n instanceof Labeled l && l.getText() != null && !l.getText().isEmpty()) {
            l.applyCss();
            for (Node c : l.getChildrenUnmodifiable()) {
                if (c instanceof com.sun.javafx.scene.control.LabeledText t
                        && !t.getText().equals(l.getText())) {
                    out.add((l.getId() == null ? l.getClass().getSimpleName() : l.getId()) + ": '" + t.getText()
                            + "' for '" + l.getText() + "'");
                }
            }
        }
        if (n instanceof Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                truncated(c, out);
            }
        }
    }

    @Test
    void theQaToolsOpenBesideTheMainWindowAsAnOrdinaryWindow(FxRobot robot) throws Exception {
        open(robot, "{\"window\": {\"x\": 0, \"y\": 0, \"width\": 760, \"height\": 500, \"maximized\": false}}");
        robot.interact(() -> assembly.openQa());
        Stage qa = (Stage) Window.getWindows().stream()
                .filter(w -> w != stage && w.isShowing() && w.getScene().lookup("#qa-fire") != null)
                .findFirst()
                .orElseThrow();
        assertThat(qa.getOwner())
                .as("owner-less, so the main window can come in front")
                .isNull();
        assertThat(qa.isAlwaysOnTop()).isFalse();
        Rectangle2D screen = Screen.getPrimary().getVisualBounds();
        if (stage.getWidth() + 8 + qa.getWidth() <= screen.getWidth()) {
            assertThat(qa.getX()).as("to the right of the main window").isEqualTo(stage.getX() + stage.getWidth() + 8);
        } else {
            assertThat(qa.getX())
                    .as("against the right edge, overlapping as little as it can")
                    .isEqualTo(screen.getMaxX() - qa.getWidth());
        }
        assertThat(qa.getY())
                .isEqualTo(Math.max(screen.getMinY(), Math.min(stage.getY(), screen.getMaxY() - qa.getHeight())));
        robot.interact(() -> stage.hide());
        assertThat(qa.isShowing()).as("hides with the main window").isFalse();
    }
}
