package org.leasesync.desktop.fx;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javafx.geometry.Rectangle2D;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.WindowGeometry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the app's windows go: the main window gets its minimum size and the size, position and
 * maximized state it had last time ({@link SettingsFile#windowGeometry()}), fitted to the work areas
 * of the screens there now ({@link WindowGeometry#place}: a window last seen on an unplugged monitor
 * opens centred on the primary one, one larger than its screen is made to fit); the QA tools window
 * opens beside the main window.
 *
 * <p>FX thread only.
 */
final class WindowPlacement {

    private static final Logger log = LoggerFactory.getLogger(WindowPlacement.class);

    private final Stage stage;
    private final SettingsFile settings;
    /** The last size and position while neither maximized nor iconified (what un-maximizing returns to). */
    private Rectangle2D normal;

    WindowPlacement(Stage stage, SettingsFile settings) {
        this.stage = stage;
        this.settings = settings;
    }

    /**
     * Sets the minimum size and, unless the window is showing already ({@link #beforeFirstShow}
     * placed it), the saved geometry fitted to the screens there now; then keeps track of the
     * normal bounds and saves them whenever the window hides.
     */
    void restore() {
        if (!stage.isShowing()) {
            beforeFirstShow(stage, settings.windowGeometry());
        }
        normal = new Rectangle2D(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight());
        javafx.beans.InvalidationListener track = o -> {
            if (!stage.isMaximized() && !stage.isIconified() && stage.isShowing()) {
                normal = new Rectangle2D(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight());
            }
        };
        stage.xProperty().addListener(track);
        stage.yProperty().addListener(track);
        stage.widthProperty().addListener(track);
        stage.heightProperty().addListener(track);
        stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, e -> save());
    }

    /**
     * Gives a window not shown yet its minimum size and the size and position it opens at
     * ({@link WindowGeometry#place}: the saved geometry, or the first-start size, fitted to the
     * work areas of the screens there now). Every way the window first appears goes through this —
     * shown at start, or started in the tray and opened later — so none opens at a size the toolkit
     * chose. FX thread.
     *
     * @param kept the saved geometry ({@link SettingsFile#windowGeometry()}), empty on a first start
     */
    static void beforeFirstShow(Stage stage, Optional<WindowGeometry> kept) {
        stage.setMinWidth(WindowGeometry.MIN_WIDTH);
        stage.setMinHeight(WindowGeometry.MIN_HEIGHT);
        Optional<WindowGeometry> saved = kept.map(WindowGeometry::atLeastMinimum);
        WindowGeometry g = WindowGeometry.place(saved, workAreas());
        if (saved.isPresent()
                && (g.x() != saved.get().x() || g.y() != saved.get().y())) {
            log.info(
                    "the window's last place ({}, {}, {} x {}) is not wholly on a screen now; opening it at ({}, {}, {} x {})",
                    saved.get().x(),
                    saved.get().y(),
                    saved.get().width(),
                    saved.get().height(),
                    g.x(),
                    g.y(),
                    g.width(),
                    g.height());
        }
        apply(stage, g);
        // GTK maps a new window at the size it computes from the scene (clamped to the minimum size),
        // not at the one set before: once the window is there, the placement is applied again
        stage.addEventHandler(WindowEvent.WINDOW_SHOWN, new javafx.event.EventHandler<WindowEvent>() {
            @Override
            public void handle(WindowEvent e) {
                stage.removeEventHandler(WindowEvent.WINDOW_SHOWN, this);
                if (!g.maximized()) {
                    apply(stage, g);
                }
            }
        });
    }

    private static void apply(Stage stage, WindowGeometry g) {
        stage.setWidth(g.width());
        stage.setHeight(g.height());
        stage.setX(g.x());
        stage.setY(g.y());
        stage.setMaximized(g.maximized());
    }

    /** The work areas of the screens there now, the primary screen's first. */
    static List<WindowGeometry.Area> workAreas() {
        List<WindowGeometry.Area> areas = new ArrayList<>();
        Screen primary = Screen.getPrimary();
        areas.add(area(primary));
        for (Screen s : Screen.getScreens()) {
            if (!s.equals(primary)) {
                areas.add(area(s));
            }
        }
        return areas;
    }

    private static WindowGeometry.Area area(Screen s) {
        Rectangle2D b = s.getVisualBounds();
        return new WindowGeometry.Area(b.getMinX(), b.getMinY(), b.getWidth(), b.getHeight());
    }

    /** The geometry to keep: the normal bounds and whether the window is maximized. */
    Optional<WindowGeometry> current() {
        Rectangle2D r = normal != null
                ? normal
                : new Rectangle2D(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight());
        if (!(r.getWidth() > 0) || !(r.getHeight() > 0) || Double.isNaN(r.getMinX()) || Double.isNaN(r.getMinY())) {
            return Optional.empty(); // never shown
        }
        return Optional.of(
                new WindowGeometry(r.getMinX(), r.getMinY(), r.getWidth(), r.getHeight(), stage.isMaximized()));
    }

    /** Writes the geometry to the settings file (a small file write); a failure is logged, nothing more. */
    void save() {
        current().ifPresent(g -> {
            try {
                settings.saveWindowGeometry(g);
            } catch (RuntimeException e) {
                log.warn("could not save the window's size and position: {}", e.getMessage());
            }
        });
    }

    /**
     * Puts {@code other} (the QA tools) beside {@code main}: to its right when it fits on main's screen,
     * else to its left, else against the screen edge on the side with more room (overlapping main as
     * little as it can); vertically aligned with main and kept on the screen.
     */
    static void beside(Window main, Window other) {
        // before its first showing a window has no size yet: its scene's size stands in
        double w = Double.isNaN(other.getWidth()) ? other.getScene().getWidth() : other.getWidth();
        double h = Double.isNaN(other.getHeight()) ? other.getScene().getHeight() : other.getHeight();
        Rectangle2D screen = Screen.getScreensForRectangle(
                        main.getX(), main.getY(), Math.max(1, main.getWidth()), Math.max(1, main.getHeight()))
                .stream()
                .findFirst()
                .orElse(Screen.getPrimary())
                .getVisualBounds();
        double gap = 8;
        double roomRight = screen.getMaxX() - (main.getX() + main.getWidth() + gap);
        double roomLeft = main.getX() - gap - screen.getMinX();
        double x;
        if (w <= roomRight) {
            x = main.getX() + main.getWidth() + gap;
        } else if (w <= roomLeft) {
            x = main.getX() - gap - w;
        } else if (roomRight >= roomLeft) {
            x = screen.getMaxX() - w; // overlapping as little as it can, on the side with more room
        } else {
            x = screen.getMinX();
        }
        x = Math.max(screen.getMinX(), Math.min(x, screen.getMaxX() - w));
        double y = Math.max(screen.getMinY(), Math.min(main.getY(), screen.getMaxY() - h));
        other.setX(x);
        other.setY(y);
    }
}
