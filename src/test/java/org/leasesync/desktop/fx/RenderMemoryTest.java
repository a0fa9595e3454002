package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.leasesync.testing.FxTest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The render caches the window turns off: Prism's region cache (unless decided) and scroll panes' viewport images. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class RenderMemoryTest {

    ScrollPane uncached;
    ScrollPane plain;

    @Start
    void start(Stage stage) {
        uncached = RenderMemory.uncachedScrollPane(new Label("uncached"));
        plain = new ScrollPane(new Label("plain"));
        stage.setScene(new Scene(new HBox(uncached, plain), 300, 200));
        stage.show();
    }

    @Test
    void aScrollPaneOfTheWindowDoesNotCacheItsViewportWhileJavaFxsOwnDoes(FxRobot robot) {
        robot.interact(() -> {
            Node viewport = uncached.lookup(".viewport");
            assertThat(viewport).as("the skin's viewport node").isNotNull();
            assertThat(viewport.isCache()).isFalse();
            // the default this works against: ScrollPaneSkin caches its viewport as an image
            assertThat(plain.lookup(".viewport").isCache()).isTrue();
        });
    }

    @Test
    void theRegionCacheIsTurnedOffUnlessAlreadyDecided() {
        Properties none = new Properties();
        RenderMemory.configure(none);
        assertThat(none.getProperty("prism.disableRegionCaching")).isEqualTo("true");

        Properties keep = new Properties();
        keep.setProperty("prism.disableRegionCaching", "false");
        RenderMemory.configure(keep);
        assertThat(keep.getProperty("prism.disableRegionCaching")).isEqualTo("false");
    }
}
