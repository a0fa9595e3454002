package org.leasesync.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Screenshots the desktop tests take of what a person would see: always into
 * {@code target/screenshots/}; those named {@code screenshot-*.png}, with
 * {@code -Dleasesync.screenshots=DIR} (e.g. {@code assets}), also into that directory, which is how
 * the README's pictures are made.
 */
public final class Screenshots {

    private Screenshots() {}

    /** Saves the rectangle {x, y, width, height} of the session's screen (the whole screen without one). */
    public static Path save(DesktopSession session, String name, int... crop) throws IOException {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        Path png = dir.resolve(name);
        int[] c = crop.length == 4 ? new int[] {Math.max(0, crop[0]), Math.max(0, crop[1]), crop[2], crop[3]} : crop;
        session.screenshot(png.toAbsolutePath(), c);
        String also = System.getProperty("leasesync.screenshots");
        if (also != null && !also.isBlank() && name.startsWith("screenshot-")) {
            Files.createDirectories(Path.of(also));
            Files.copy(png, Path.of(also).resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
        return png;
    }
}
