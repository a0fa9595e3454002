package org.leasesync.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The product's version as the build wrote it (the pom's {@code <version>}, filtered into
 * {@code version.properties} next to this class), for {@code leasesync --version} and the window's
 * About dialog, so that neither repeats the number.
 *
 * <p>Thread-safe and non-blocking after the first call (the value is read once and kept).
 */
public final class ProductVersion {

    /** What {@link #get()} answers when the build did not fill the file in (an unfiltered resource). */
    public static final String UNKNOWN = "unknown";

    private static final String VALUE = read();

    private ProductVersion() {}

    /**
     * The version, e.g. {@code "0.1.0"}; {@link #UNKNOWN} when the resource is missing or was not
     * filtered (classes run from an IDE that skipped Maven's resources). Never null or empty.
     */
    public static String get() {
        return VALUE;
    }

    private static String read() {
        try (InputStream in = ProductVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return UNKNOWN;
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "").strip();
            return v.isEmpty() || v.startsWith("${") ? UNKNOWN : v;
        } catch (IOException e) {
            return UNKNOWN;
        }
    }
}
