package org.leasesync.desktop;

import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.leasesync.lease.LeasesyncException;

/**
 * Whether this machine can show the window, and what to say when it cannot: one plain line naming
 * the cause and the fix, never a stack trace (the cause goes to the log file). Stateless.
 */
public final class DisplayCheck {

    /** Run the window where there is no desktop: Xvfb's wrapper from Debian's xvfb package. */
    static final String XVFB_HINT = "start one with Xvfb (xvfb-run -a leasesync)";

    private DisplayCheck() {}

    /**
     * Refuses before JavaFX starts when there is no display at all.
     *
     * @throws LeasesyncException naming DISPLAY and what to do
     */
    public static void check(Map<String, String> env, Properties system) {
        boolean linux =
                system.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
        boolean monocle = "Monocle".equalsIgnoreCase(system.getProperty("glass.platform", ""));
        // a Wayland session without XWayland is left to JavaFX (its failure is explained below)
        if (linux && !monocle && blank(env.get("DISPLAY")) && blank(env.get("WAYLAND_DISPLAY"))) {
            throw new LeasesyncException("there is no display to open the window on: DISPLAY is not set. Run it on a "
                    + "desktop, set DISPLAY to a running X server, or " + XVFB_HINT
                    + "; the commands (leasesync --help) "
                    + "need no display");
        }
    }

    /**
     * The plain reason JavaFX could not start, or a wrapping {@link LeasesyncException} with the
     * unexpected error as cause.
     */
    public static LeasesyncException explain(Throwable e, Map<String, String> env) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("Unable to open DISPLAY")) {
                return new LeasesyncException(
                        "cannot open the display '" + env.getOrDefault("DISPLAY", "")
                                + "' (DISPLAY): no X server answers there. Set DISPLAY to a running one, or "
                                + XVFB_HINT,
                        e);
            }
            if (m.contains("Unable to load glass GTK library") || m.contains("libgtk-3")) {
                return new LeasesyncException(
                        "the window needs GTK 3, which is not installed: apt-get install "
                                + "libgtk-3-0 (as root; otherwise with sudo)",
                        e);
            }
        }
        return new LeasesyncException("the window could not start: " + e, e);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
