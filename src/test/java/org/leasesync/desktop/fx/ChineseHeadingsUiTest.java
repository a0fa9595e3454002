package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.leasesync.testing.FxTest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The window's headings are bold in Chinese too: each heading style of app.css, drawn with a Chinese
 * text in the window's theme and stylesheet as the window applies them, has clearly more ink than the
 * same text at normal weight (with this machine's CJK font, which has no bold face, both drew the same).
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ChineseHeadingsUiTest {

    static final String TEXT = "课程同步设置账户";
    static final List<String> HEADINGS = List.of("app-title", "section-title", "card-title", "settings-section");

    final VBox box = new VBox();

    @Start
    void start(Stage stage) {
        javafx.application.Application.setUserAgentStylesheet(
                new atlantafx.base.theme.PrimerLight().getUserAgentStylesheet());
        Scene scene = new Scene(box, 600, 400);
        AppStyle.apply(scene, java.util.Locale.SIMPLIFIED_CHINESE);
        stage.setScene(scene);
        stage.show();
    }

    @Test
    void everyHeadingIsBolderThanNormalText(FxRobot robot) {
        for (String heading : HEADINGS) {
            long[] ink = new long[2];
            robot.interact(() -> {
                Label bold = new Label(TEXT);
                bold.getStyleClass().add(heading);
                Label normal = new Label(TEXT);
                box.getChildren().setAll(bold, normal);
                box.applyCss();
                normal.setStyle("-fx-font-size: " + bold.getFont().getSize() + "px; -fx-font-weight: normal;");
                box.applyCss();
                box.layout();
                ink[0] = ink(bold.snapshot(null, null));
                ink[1] = ink(normal.snapshot(null, null));
            });
            assertThat(ink[1]).as("%s: ink at normal weight", heading).isPositive();
            assertThat((double) ink[0])
                    .as("%s: ink in bold (%d) against normal (%d)", heading, ink[0], ink[1])
                    .isGreaterThan(ink[1] * 1.15);
        }
    }

    static long ink(WritableImage img) {
        PixelReader r = img.getPixelReader();
        long n = 0;
        for (int y = 0; y < (int) img.getHeight(); y++) {
            for (int x = 0; x < (int) img.getWidth(); x++) {
                if (r.getColor(x, y).getBrightness() < 0.5) {
                    n++;
                }
            }
        }
        return n;
    }
}
