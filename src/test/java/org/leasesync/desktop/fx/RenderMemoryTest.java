package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
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

    @Test
    void withoutAGpuDevicePrismRendersInSoftwareUnlessAlreadyDecided(@TempDir Path dir) throws Exception {
        Path none = dir.resolve("dri-missing");
        Properties noGpu = new Properties();
        RenderMemory.choosePipeline(noGpu, none);
        assertThat(noGpu.getProperty("prism.order")).isEqualTo("sw");

        Path empty = Files.createDirectory(dir.resolve("dri-empty"));
        Properties emptyDir = new Properties();
        RenderMemory.choosePipeline(emptyDir, empty);
        assertThat(emptyDir.getProperty("prism.order")).isEqualTo("sw");

        Path gpu = Files.createDirectory(dir.resolve("dri"));
        Files.createFile(gpu.resolve("renderD128"));
        Properties withGpu = new Properties();
        RenderMemory.choosePipeline(withGpu, gpu);
        assertThat(withGpu.getProperty("prism.order"))
                .as("Prism's own choice, OpenGL first")
                .isNull();

        Properties decided = new Properties();
        decided.setProperty("prism.order", "es2");
        RenderMemory.choosePipeline(decided, none);
        assertThat(decided.getProperty("prism.order")).isEqualTo("es2");
    }

    @Test
    void gtkIsKeptOffOpenGlOnlyWhenPrismRendersInSoftware() {
        Properties es2 = new Properties();
        es2.setProperty("prism.order", "es2");
        assertThat(RenderMemory.keepGtkOffOpenGl(es2)).isFalse();
        assertThat(RenderMemory.keepGtkOffOpenGl(new Properties())).isFalse();

        Properties sw = new Properties();
        sw.setProperty("prism.order", "sw");
        assertThat(RenderMemory.keepGtkOffOpenGl(sw)).isTrue();
        assertThat(org.leasesync.desktop.tray.NativeEnv.get(RenderMemory.GTK_GL))
                .as("what GTK reads when it starts")
                .isPresent();
    }
}
