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
}
