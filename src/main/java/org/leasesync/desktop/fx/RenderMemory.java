package org.leasesync.desktop.fx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import javafx.scene.Node;
import javafx.scene.control.ScrollPane;

/**
 * Two JavaFX render caches the window does without (docs/benchmarks.md). A heap dump of
 * the idle window showed 11.7 MB of its 16 MB of {@code int[]} in them when Prism renders in software
 * (under Xvfb, and on a desktop without usable OpenGL), where a texture is an {@code int[]} on the Java
 * heap; with OpenGL they are textures of the same size in the driver:
 * <ul>
 * <li>the region cache: a 2048×1024 texture (8 MB) in which Prism keeps the rounded backgrounds and
 *     borders of regions (the theme's buttons, the scope cards). Drawing them each time instead costs
 *     nothing while the window is idle and a few shapes per repaint otherwise;</li>
 * <li>a {@link ScrollPane}'s viewport, which its skin renders into an image of the viewport's size
 *     ({@code setCache(true)}, 3.3 MB for the cards) to scroll by copying pixels; the tabs scroll a few
 *     cards or a form, which redraw as fast.</li>
 * </ul>
 * Static methods; call them on the JavaFX application thread, except {@link #configure} (before JavaFX starts).
 */
final class RenderMemory {

    /** Prism's switch for the region cache, read once when the toolkit starts. */
    static final String REGION_CACHE_PROPERTY = "prism.disableRegionCaching";

    /** Prism's choice of pipelines, in order ({@code es2,sw} when unset on Linux). */
    static final String PIPELINE_PROPERTY = "prism.order";

    /** Where Linux lists the machine's GPUs (DRM devices: {@code card0}, {@code renderD128}, ...). */
    static final Path GPU_DEVICES = Path.of("/dev/dri");

    private RenderMemory() {}

    /**
     * Turns Prism's region cache off unless {@code properties} already decide it (e.g.
     * {@code -Dprism.disableRegionCaching=false} in {@code JAVA_OPTS} brings it back). Must run before the
     * JavaFX toolkit starts; later it has no effect. Does not block.
     */
    static void configure(Properties properties) {
        if (properties.getProperty(REGION_CACHE_PROPERTY) == null) {
            properties.setProperty(REGION_CACHE_PROPERTY, "true");
        }
    }

    /**
     * Renders in software ({@code prism.order=sw}) when the machine has no GPU device ({@code /dev/dri}
     * missing, empty, or none this user may open: a VM, a container, Xvfb, a remote X session) and {@code properties} do not
     * decide it. OpenGL there is Mesa's llvmpipe, itself a software renderer, and loading it maps
     * libLLVM: ~42 MB more resident all day, the tray included (docs/benchmarks.md). With a GPU, Prism
     * keeps its OpenGL pipeline. Must run before the JavaFX toolkit starts. Reads {@code gpuDevices}.
     */
    static void choosePipeline(Properties properties, Path gpuDevices) {
        if (properties.getProperty(PIPELINE_PROPERTY) != null) {
            return;
        }
        boolean gpu;
        try (java.util.stream.Stream<Path> devices = Files.list(gpuDevices)) {
            gpu = devices.anyMatch(d -> Files.isReadable(d) && Files.isWritable(d)); // one it may open
        } catch (IOException | RuntimeException e) {
            gpu = false; // no /dev/dri (or not readable): no GPU this process could open
        }
        if (!gpu) {
            properties.setProperty(PIPELINE_PROPERTY, "sw");
        }
    }

    /**
     * With Prism in software ({@code prism.order=sw}), keeps GTK from loading OpenGL: GDK looks for
     * OpenGL visuals when it opens the display, which maps Mesa (libGL, swrast_dri, libLLVM) although
     * nothing of the window draws with it — up to ~48 MB resident (docs/benchmarks.md). Sets
     * {@code GDK_GL=disable} in the process's environment (unless already set), where GTK reads it when
     * JavaFX starts it. Must run before the JavaFX toolkit starts, while no other thread reads the
     * environment. Never throws: without libc through JNA ({@code NativeEnv}), GTK loads OpenGL as before.
     *
     * @return whether {@code GDK_GL} is set now
     */
    static boolean keepGtkOffOpenGl(Properties properties) {
        if (!"sw".equals(properties.getProperty(PIPELINE_PROPERTY))) {
            return false;
        }
        return org.leasesync.desktop.tray.NativeEnv.setIfUnset(GTK_GL, "disable");
    }

    /** GTK's switch for its OpenGL support ({@code disable} and other flags). */
    static final String GTK_GL = "GDK_GL";

    /**
     * A scroll pane over {@code content} whose viewport is not cached as an image: the skin's viewport
     * node (style class {@code viewport}) gets {@code cache=false} as soon as the skin exists.
     */
    static ScrollPane uncachedScrollPane(Node content) {
        ScrollPane pane = new ScrollPane(content);
        pane.skinProperty().addListener((o, old, skin) -> {
            if (skin != null) {
                Node viewport = pane.lookup(".viewport");
                if (viewport != null) {
                    viewport.setCache(false);
                }
            }
        });
        return pane;
    }
}
