package org.leasesync.desktop.notify;

import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.freedesktop.dbus.Struct;
import org.freedesktop.dbus.annotations.Position;

/**
 * The app icon as the freedesktop notification specification's {@code image-data} hint: raw RGBA
 * rows ({@code (iiibiiay)}: width, height, rowstride, has alpha, bits per sample, channels, data).
 * Sent with every notification, so the icon shows whether the app was installed (with an icon in the
 * theme) or runs from the jar (with none on disk); notification services that ignore the hint fall
 * back to {@code desktop-entry}.
 *
 * <p>Immutable and thread-safe.
 */
public final class NotificationIcon extends Struct {

    /** The D-Bus signature of the struct, for the hint's variant. */
    static final String SIGNATURE = "(iiibiiay)";

    /** Pixels per side: the size the specification's examples use and services scale well from. */
    static final int SIZE = 64;

    @Position(0)
    public final int width;

    @Position(1)
    public final int height;

    @Position(2)
    public final int rowstride;

    @Position(3)
    public final boolean hasAlpha;

    @Position(4)
    public final int bitsPerSample;

    @Position(5)
    public final int channels;

    @Position(6)
    public final byte[] data;

    private NotificationIcon(int size, byte[] rgba) {
        this.width = size;
        this.height = size;
        this.rowstride = size * 4;
        this.hasAlpha = true;
        this.bitsPerSample = 8;
        this.channels = 4;
        this.data = rgba;
    }

    /**
     * The app's icon ({@link org.leasesync.desktop.AppIcon}), scaled to
     * {@value #SIZE}×{@value #SIZE}.
     *
     * @return the icon, or empty when the resource is missing or cannot be decoded (notifications are
     *         then sent without one)
     */
    static Optional<NotificationIcon> load() {
        try (InputStream in = org.leasesync.desktop.AppIcon.open()) {
            BufferedImage src = in == null ? null : ImageIO.read(in);
            return src == null ? Optional.empty() : Optional.of(of(src));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static NotificationIcon of(BufferedImage src) {
        BufferedImage img = new BufferedImage(SIZE, SIZE, BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BICUBIC);
            g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
            g.drawImage(src, 0, 0, SIZE, SIZE, null);
        } finally {
            g.dispose();
        }
        byte[] rgba = new byte[SIZE * SIZE * 4];
        int i = 0;
        for (int y = 0; y < SIZE; y++) {
            for (int x = 0; x < SIZE; x++) {
                int argb = img.getRGB(x, y);
                rgba[i++] = (byte) (argb >>> 16);
                rgba[i++] = (byte) (argb >>> 8);
                rgba[i++] = (byte) argb;
                rgba[i++] = (byte) (argb >>> 24);
            }
        }
        return new NotificationIcon(SIZE, rgba);
    }
}
