package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.application.Platform;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.NamedThreads;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Messages;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * "Open logs folder" / "Open data folder": handed to the desktop off the FX thread; where no program
 * can open folders (headless Monocle has none), a dialog shows the path with a working Copy button.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class FolderActionsUiTest {

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    final ExecutorService background = Executors.newSingleThreadExecutor(new NamedThreads("test-actions", true));
    Backend backend;
    AppAssembly assembly;
    Stage stage;

    @RegisterExtension
    final AppWindow window = new AppWindow();

    @Start
    void start(Stage stage) {
        this.stage = stage;
        var settings = UiTestSupport.settings(tmp.resolve("data"), Duration.ofHours(1), time);
        assembly = window.open(stage, settings);
        backend = window.backend();
    }

    @AfterEach
    void tearDown() {
        background.shutdownNow(); // after the window: AppWindow closes it first
    }

    @Test
    void openLogsFolderWithoutAFolderProgramShowsThePathWithACopyButton(FxRobot robot) {
        robot.clickOn("#app-menu").clickOn("#menu-open-logs");
        waitUntil("path dialog", () -> robot.lookup("#folder-dialog").tryQuery().isPresent());
        Path logs = tmp.resolve("data").resolve("logs").toAbsolutePath();
        assertThat(robot.lookup("#folder-path").queryAs(TextField.class).getText())
                .isEqualTo(logs.toString());
        assertThat(Files.isDirectory(logs))
                .as("created, so it can be opened by hand")
                .isTrue();
        robot.clickOn("#folder-copy");
        String[] clip = new String[1];
        robot.interact(() ->
                clip[0] = javafx.scene.input.Clipboard.getSystemClipboard().getString());
        assertThat(clip[0]).isEqualTo(logs.toString());
        assertThat(robot.lookup("#folder-copied").queryLabeled().getText()).isEqualTo("Copied.");
    }

    @Test
    void aDesktopThatCanOpenFoldersGetsTheFolderOffTheFxThreadAndNoDialogShows(FxRobot robot) throws Exception {
        List<String> opened = new CopyOnWriteArrayList<>();
        FolderActions folders = new FolderActions(
                tmp.resolve("data"),
                dir -> opened.add(dir + " on " + Thread.currentThread().getName()),
                background,
                Platform::runLater,
                Messages.system(),
                () -> stage);
        folders.openData();
        folders.openLogs();
        waitUntil("both opened", () -> opened.size() == 2);
        assertThat(opened)
                .containsExactly(
                        tmp.resolve("data") + " on test-actions-1",
                        tmp.resolve("data").resolve("logs") + " on test-actions-1");
        robot.interact(() -> {});
        assertThat(robot.lookup("#folder-dialog").tryQuery()).isEmpty();

        // a desktop whose handler fails (e.g. no program for inode/directory) shows the path instead
        FolderActions failing = new FolderActions(
                tmp.resolve("data"),
                dir -> {
                    throw new java.io.IOException("Failed to show URI:file://" + dir);
                },
                background,
                Platform::runLater,
                Messages.system(),
                () -> stage);
        failing.openData();
        waitUntil("path dialog", () -> robot.lookup("#folder-dialog").tryQuery().isPresent());
        assertThat(robot.lookup("#folder-path").queryAs(TextField.class).getText())
                .isEqualTo(tmp.resolve("data").toAbsolutePath().toString());
    }
}
