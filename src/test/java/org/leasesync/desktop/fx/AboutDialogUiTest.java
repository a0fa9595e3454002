package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Menu ▸ About leasesync: the build's version (the pom's, not a number repeated in code), the
 * runtime, the data directory and log folder of this window, and "Copy details" with all of them.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class AboutDialogUiTest {

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
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

    @Test
    void aboutShowsTheBuildsVersionAndThisWindowsFoldersAndCopiesThem(FxRobot robot) throws Exception {
        robot.clickOn("#app-menu").clickOn("#menu-about");
        waitUntil("about dialog", () -> robot.lookup("#about-dialog").tryQuery().isPresent());

        Matcher pom = Pattern.compile("<artifactId>leasesync</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(Path.of("pom.xml")));
        assertThat(pom.find()).as("the pom's own version").isTrue();
        assertThat(robot.lookup("#about-version").queryLabeled().getText()).isEqualTo("leasesync " + pom.group(1));

        // every caption whole, never cut to "…"
        robot.lookup("#about-dialog .label").queryAllAs(javafx.scene.control.Label.class).stream()
                .filter(l ->
                        l.isVisible() && l.getText() != null && !l.getText().isEmpty())
                .forEach(l -> assertThat(l.getWidth())
                        .as("width of '%s'", l.getText())
                        .isGreaterThanOrEqualTo(l.prefWidth(-1) - 0.5));

        Path data = tmp.resolve("data").toAbsolutePath();
        assertThat(text(robot, "#about-data-dir")).isEqualTo(data.toString());
        assertThat(text(robot, "#about-log-folder"))
                .isEqualTo(data.resolve("logs").toString());
        assertThat(text(robot, "#about-runtime"))
                .startsWith("Java " + Runtime.version().feature())
                .contains("JavaFX 21");

        robot.clickOn("#about-copy");
        String[] clip = new String[1];
        robot.interact(() ->
                clip[0] = javafx.scene.input.Clipboard.getSystemClipboard().getString());
        assertThat(clip[0])
                .startsWith("leasesync " + pom.group(1))
                .contains("Data folder: " + data, "Log folder: " + data.resolve("logs"), "Runtime: Java ");
        assertThat(robot.lookup("#about-copied").queryLabeled().getText()).isEqualTo("Copied.");

        // Open on a desktop without a folder program (headless) shows the path instead of failing silently
        robot.clickOn("#about-open-logs");
        waitUntil("path dialog", () -> robot.lookup("#folder-dialog").tryQuery().isPresent());
        assertThat(text(robot, "#folder-path")).isEqualTo(data.resolve("logs").toString());
    }

    private static String text(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(TextField.class).getText();
    }
}
