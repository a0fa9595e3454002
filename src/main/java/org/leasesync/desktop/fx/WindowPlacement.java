package org.leasesync.desktop.fx;

import java.util.Optional;
import javafx.geometry.Rectangle2D;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.WindowGeometry;

/**
 * Where the app's windows go: the main window gets its minimum size and the size, position and
 * maximized state it had last time ({@link SettingsFile#windowGeometry()}) — the position only when
 * it lies on a screen that is there now, so a window last seen on an unplugged monitor opens
 * centred on the primary one; the QA tools window opens beside the main window.
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

    /** Sets the minimum size and the saved geometry; call before the window is first shown. */
    void restore() {
        stage.setMinWidth(WindowGeometry.MIN_WIDTH);
        stage.setMinHeight(WindowGeometry.MIN_HEIGHT);
        Optional<WindowGeometry> saved = settings.windowGeometry().map(WindowGeometry::atLeastMinimum);
        if (saved.isPresent()) {
            WindowGeometry g = saved.get();
            stage.setWidth(g.width());
            stage.setHeight(g.height());
            if (onAScreen(g)) {
                stage.setX(g.x());
                stage.setY(g.y());
            } else {
                log.info("the window's last position ({}, {}) is on no screen now; centring it", g.x(), g.y());
                stage.centerOnScreen();
            }
            stage.setMaximized(g.maximized());
            normal = new Rectangle2D(stage.getX(), stage.getY(), g.width(), g.height());
        }
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

    /** Whether the top-left corner area of {@code g} is on a screen that exists now. */
    static boolean onAScreen(WindowGeometry g) {
        // the title bar's area: a window whose top edge is visible somewhere can be dragged back
        return !Screen.getScreensForRectangle(g.x(), g.y(), Math.min(g.width(), 200), 40).isEmpty();
    }

    /** The geometry to keep: the normal bounds and whether the window is maximized. */
    Optional<WindowGeometry> current() {
        Rectangle2D r = normal != null ? normal
                : new Rectangle2D(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight());
        if (!(r.getWidth() > 0) || !(r.getHeight() > 0) || Double.isNaN(r.getMinX()) || Double.isNaN(r.getMinY())) {
            return Optional.empty();   // never shown
        }
        return Optional.of(new WindowGeometry(r.getMinX(), r.getMinY(), r.getWidth(), r.getHeight(), stage.isMaximized()));
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
        Rectangle2D screen = Screen.getScreensForRectangle(main.getX(), main.getY(), Math.max(1, main.getWidth()),
                Math.max(1, main.getHeight())).stream().findFirst().orElse(Screen.getPrimary()).getVisualBounds();
        double gap = 8;
        double roomRight = screen.getMaxX() - (main.getX() + main.getWidth() + gap);
        double roomLeft = main.getX() - gap - screen.getMinX();
        double x;
        if (w <= roomRight) {
            x = main.getX() + main.getWidth() + gap;
        } else if (w <= roomLeft) {
            x = main.getX() - gap - w;
        } else if (roomRight >= roomLeft) {
            x = screen.getMaxX() - w;   // overlapping as little as it can, on the side with more room
        } else {
            x = screen.getMinX();
        }
        x = Math.max(screen.getMinX(), Math.min(x, screen.getMaxX() - w));
        double y = Math.max(screen.getMinY(), Math.min(main.getY(), screen.getMaxY() - h));
        other.setX(x);
        other.setY(y);
    }
}
