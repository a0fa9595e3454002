package org.leasesync.desktop;

/**
 * The main window's size and position as kept in {@code settings.json} (key {@code "window"}), in
 * JavaFX's device-independent pixels, screen coordinates. Immutable.
 *
 * @param x left edge
 * @param y top edge
 * @param width width, {@code > 0}
 * @param height height, {@code > 0}
 * @param maximized whether the window was maximized (x, y, width and height are then the size it
 *     returns to when un-maximized)
 */
public record WindowGeometry(double x, double y, double width, double height, boolean maximized) {

    /** Smallest size the window can be made: the cards still fit without truncating a title or button. */
    public static final double MIN_WIDTH = 720;

    public static final double MIN_HEIGHT = 480;
    /** The size of a first start. */
    public static final double DEFAULT_WIDTH = 1180;

    public static final double DEFAULT_HEIGHT = 780;

    public WindowGeometry {
        for (double v : new double[] {x, y, width, height}) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("window geometry must be finite numbers, got x=" + x + ", y=" + y
                        + ", width=" + width + ", height=" + height);
            }
        }
        if (width <= 0 || height <= 0) {
            throw new IllegalArgumentException("window width and height must be > 0, got " + width + " x " + height);
        }
    }

    /** This geometry with width and height raised to the minimum size. */
    public WindowGeometry atLeastMinimum() {
        return new WindowGeometry(x, y, Math.max(width, MIN_WIDTH), Math.max(height, MIN_HEIGHT), maximized);
    }

    /**
     * A screen's work area (what the desktop's panels leave free), in the same units as the
     * geometry.
     *
     * @param x left edge
     * @param y top edge
     * @param width width, {@code >= 0}
     * @param height height, {@code >= 0}
     */
    public record Area(double x, double y, double width, double height) {
        double overlap(double ox, double oy, double ow, double oh) {
            double w = Math.min(x + width, ox + ow) - Math.max(x, ox);
            double h = Math.min(y + height, oy + oh) - Math.max(y, oy);
            return w > 0 && h > 0 ? w * h : 0;
        }
    }

    /** The part of a window's top edge that must be on a screen for its position to be kept: the title bar. */
    static final double TITLE_WIDTH = 200;

    static final double TITLE_HEIGHT = 40;

    /**
     * Where the window opens on the screens there now. Without a saved geometry: the first-start
     * size, made smaller to fit the primary screen's work area, centred on it. With one: its size
     * (at least the minimum), made smaller to fit the work area of the screen its title bar is on,
     * and its position moved as little as needed to be wholly on that work area; when its title bar
     * is on no screen now (a monitor that is gone), centred on the primary screen. The minimum size
     * wins over a work area smaller than it. The maximized state is kept.
     *
     * @param saved the geometry kept in {@code settings.json}, or empty on a first start
     * @param workAreas the work areas of the screens present now, the primary screen's first; not empty
     * @return the size and position to open at; never smaller than {@link #MIN_WIDTH} × {@link #MIN_HEIGHT}
     * @throws IllegalArgumentException when {@code workAreas} is empty
     */
    public static WindowGeometry place(java.util.Optional<WindowGeometry> saved, java.util.List<Area> workAreas) {
        if (workAreas.isEmpty()) {
            throw new IllegalArgumentException("no screen to place the window on");
        }
        Area primary = workAreas.get(0);
        if (saved.isEmpty()) {
            double w = fit(DEFAULT_WIDTH, MIN_WIDTH, primary.width());
            double h = fit(DEFAULT_HEIGHT, MIN_HEIGHT, primary.height());
            return new WindowGeometry(
                    centre(primary.x(), primary.width(), w), centre(primary.y(), primary.height(), h), w, h, false);
        }
        WindowGeometry g = saved.get();
        Area on = null;
        double best = 0;
        for (Area a : workAreas) {
            double o = a.overlap(g.x(), g.y(), Math.min(g.width(), TITLE_WIDTH), TITLE_HEIGHT);
            if (o > best) {
                best = o;
                on = a;
            }
        }
        double w;
        double h;
        if (on == null) {
            w = fit(g.width(), MIN_WIDTH, primary.width());
            h = fit(g.height(), MIN_HEIGHT, primary.height());
            return new WindowGeometry(
                    centre(primary.x(), primary.width(), w),
                    centre(primary.y(), primary.height(), h),
                    w,
                    h,
                    g.maximized());
        }
        w = fit(g.width(), MIN_WIDTH, on.width());
        h = fit(g.height(), MIN_HEIGHT, on.height());
        double x = Math.max(on.x(), Math.min(g.x(), on.x() + on.width() - w));
        double y = Math.max(on.y(), Math.min(g.y(), on.y() + on.height() - h));
        return new WindowGeometry(x, y, w, h, g.maximized());
    }

    /** {@code wanted}, no larger than {@code room}, no smaller than {@code min}. */
    private static double fit(double wanted, double min, double room) {
        return Math.max(min, Math.min(wanted, room));
    }

    private static double centre(double start, double room, double size) {
        return start + Math.max(0, (room - size) / 2);
    }
}
