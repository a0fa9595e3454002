package org.leasesync.desktop.tray;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import javax.imageio.ImageIO;

/**
 * Draws the tray icon of each {@link TrayState}: the app icon with a round badge in the bottom
 * right corner in the state's colour and a white sign (check, dot, pause bars, cross, exclamation
 * mark), so the state reads by shape as well as by colour. Pure Java 2D; works headless.
 *
 * <p>Thread-safe (stateless besides the loaded app icon).
 */
final class TrayIcons {

    private final BufferedImage appIcon;

    TrayIcons() {
        BufferedImage icon = null;
        try (InputStream in = org.leasesync.desktop.AppIcon.open()) {
            if (in != null) {
                icon = ImageIO.read(in);
            }
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(TrayIcons.class).warn("no app icon for the tray: {}", e.toString());
        }
        this.appIcon = icon;
    }

    /** The badge's centre, as a fraction of the icon's size (x and y). */
    static final double BADGE_CENTRE = 0.70;

    /** The icon for {@code state}, {@code size} pixels square. */
    BufferedImage draw(TrayState state, int size) {
        if (size < 8) {
            throw new IllegalArgumentException("tray icon size must be at least 8 pixels, got " + size);
        }
        BufferedImage img = new BufferedImage(size, size, BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BICUBIC);
            g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
            if (appIcon != null) {
                g.drawImage(appIcon, 0, 0, size, size, null);
            } else {
                g.setColor(new Color(0x2F5BB7));
                g.fillRoundRect(0, 0, size, size, size / 4, size / 4);
            }
            double r = size * 0.30;
            double cx = size * BADGE_CENTRE;
            double cy = size * BADGE_CENTRE;
            g.setColor(Color.WHITE);
            g.fill(new Ellipse2D.Double(cx - r - 1, cy - r - 1, 2 * r + 2, 2 * r + 2));
            g.setColor(new Color(state.badgeRgb()));
            g.fill(new Ellipse2D.Double(cx - r, cy - r, 2 * r, 2 * r));
            g.setColor(state == TrayState.NEEDS_ATTENTION ? new Color(0x24292F) : Color.WHITE);
            g.setStroke(
                    new BasicStroke((float) Math.max(1.5, size / 12.0), BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
            sign(g, state, cx, cy, r * 0.55);
        } finally {
            g.dispose();
        }
        return img;
    }

    private static void sign(Graphics2D g, TrayState state, double cx, double cy, double s) {
        switch (state) {
            case UP_TO_DATE -> {
                Path2D check = new Path2D.Double();
                check.moveTo(cx - s, cy);
                check.lineTo(cx - s * 0.25, cy + s * 0.7);
                check.lineTo(cx + s, cy - s * 0.6);
                g.draw(check);
            }
            case SYNCING -> g.fill(new Ellipse2D.Double(cx - s * 0.5, cy - s * 0.5, s, s));
            case PAUSED -> {
                g.draw(new Line2D.Double(cx - s * 0.4, cy - s * 0.7, cx - s * 0.4, cy + s * 0.7));
                g.draw(new Line2D.Double(cx + s * 0.4, cy - s * 0.7, cx + s * 0.4, cy + s * 0.7));
            }
            case OFFLINE -> {
                g.draw(new Line2D.Double(cx - s * 0.7, cy - s * 0.7, cx + s * 0.7, cy + s * 0.7));
                g.draw(new Line2D.Double(cx - s * 0.7, cy + s * 0.7, cx + s * 0.7, cy - s * 0.7));
            }
            case SIGNED_OUT -> {
                // a padlock: the session is closed
                g.draw(new java.awt.geom.Arc2D.Double(
                        cx - s * 0.45, cy - s * 0.9, s * 0.9, s * 0.9, 0, 180, java.awt.geom.Arc2D.OPEN));
                g.fill(new java.awt.geom.Rectangle2D.Double(cx - s * 0.7, cy - s * 0.4, s * 1.4, s * 1.1));
            }
            case CONFLICTS -> {
                // two arrows meeting: two versions of one record
                g.draw(new Line2D.Double(cx - s * 0.8, cy - s * 0.35, cx + s * 0.8, cy - s * 0.35));
                g.draw(new Line2D.Double(cx + s * 0.8, cy - s * 0.35, cx + s * 0.35, cy - s * 0.75));
                g.draw(new Line2D.Double(cx + s * 0.8, cy + s * 0.35, cx - s * 0.8, cy + s * 0.35));
                g.draw(new Line2D.Double(cx - s * 0.8, cy + s * 0.35, cx - s * 0.35, cy + s * 0.75));
            }
            case FAILED, NEEDS_ATTENTION -> {
                g.draw(new Line2D.Double(cx, cy - s * 0.8, cx, cy + s * 0.15));
                g.fill(new Ellipse2D.Double(cx - s * 0.2, cy + s * 0.5, s * 0.4, s * 0.4));
            }
        }
    }
}
