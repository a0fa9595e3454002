package org.leasesync.desktop.tray;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an XEmbed tray host runs on an X display, asked of the X server directly through libX11
 * (via JNA): the owner of the selection {@code _NET_SYSTEM_TRAY_S<screen>} on the display's default
 * screen — the same question AWT's {@code SystemTray.isSupported()} asks on Linux, without starting
 * AWT (its toolkit, its own X connection, ~300 classes and their native memory), which a desktop
 * without a tray would load for nothing (docs/benchmarks.md, start-up against a bare window).
 *
 * <p>Thread-safe; {@link #query} blocks for one round trip to the X server (it opens and closes its
 * own connection).
 */
final class XTrayHost {

    private static final Logger log = LoggerFactory.getLogger(XTrayHost.class);

    /** What the X server said. */
    enum Answer {
        /** A tray host owns the selection: AWT can add an icon. */
        PRESENT,
        /** No one owns the selection (or the atom was never created): no tray on this display now. */
        ABSENT,
        /** The question could not be asked (no libX11, no display, an error): ask AWT. */
        UNKNOWN
    }

    /**
     * The few libX11 calls needed; {@code Atom} and {@code Window} are C {@code unsigned long},
     * {@code Bool} a C {@code int} that must be 0 or 1 (the server answers any other value with
     * BadValue, and libX11's default error handler ends the process). Only requests that cannot fail
     * with valid arguments are sent, so no error handler is installed (GTK owns that process-wide).
     */
    interface Xlib extends Library {
        Pointer XOpenDisplay(String name);

        int XDefaultScreen(Pointer display);

        NativeLong XInternAtom(Pointer display, String name, int onlyIfExists);

        NativeLong XGetSelectionOwner(Pointer display, NativeLong selection);

        int XCloseDisplay(Pointer display);
    }

    private XTrayHost() {
    }

    /**
     * Asks the X server of {@code display} whether a tray host owns {@code _NET_SYSTEM_TRAY_S<n>} of
     * its default screen.
     *
     * @param display an X display name such as {@code :0} or {@code host:1.0} (normally {@code $DISPLAY})
     * @return the answer; {@link Answer#UNKNOWN} when libX11 cannot be loaded, the display cannot be
     *         opened or anything else fails (never throws)
     */
    static Answer query(String display) {
        Objects.requireNonNull(display, "display");
        try {
            Xlib x = Native.load("X11", Xlib.class);
            Pointer d = x.XOpenDisplay(display);
            if (d == null) {
                log.debug("tray host: cannot open X display {}", display);
                return Answer.UNKNOWN;
            }
            try {
                String selection = "_NET_SYSTEM_TRAY_S" + x.XDefaultScreen(d);
                NativeLong atom = x.XInternAtom(d, selection, 1);   // None if no tray host ever claimed it
                if (atom.longValue() == 0) {
                    return Answer.ABSENT;
                }
                return x.XGetSelectionOwner(d, atom).longValue() == 0 ? Answer.ABSENT : Answer.PRESENT;
            } finally {
                x.XCloseDisplay(d);
            }
        } catch (RuntimeException | LinkageError e) {
            log.debug("tray host: cannot ask the X server ({}); asking AWT", e.toString());
            return Answer.UNKNOWN;
        }
    }

    /**
     * Watches who owns the tray selection, on a connection of its own, so that a tray host that
     * restarts is noticed even when AWT, seeing one owner replaced by the next, reports no change.
     *
     * <p>Not thread-safe: one thread calls {@link #owner()} and {@link #close()}.
     */
    static final class OwnerWatch implements AutoCloseable {
        private final Xlib x;
        private final Pointer display;
        private final NativeLong atom;

        private OwnerWatch(Xlib x, Pointer display, NativeLong atom) {
            this.x = x;
            this.display = display;
            this.atom = atom;
        }

        /**
         * Opens a connection to {@code display} for watching.
         *
         * @return the watch, or empty when libX11 or the display cannot be had (never throws)
         */
        static java.util.Optional<OwnerWatch> open(String display) {
            try {
                Xlib x = Native.load("X11", Xlib.class);
                Pointer d = x.XOpenDisplay(display);
                if (d == null) {
                    return java.util.Optional.empty();
                }
                NativeLong atom = x.XInternAtom(d, "_NET_SYSTEM_TRAY_S" + x.XDefaultScreen(d), 0);
                return java.util.Optional.of(new OwnerWatch(x, d, atom));
            } catch (RuntimeException | LinkageError e) {
                log.debug("tray host: cannot watch the selection ({})", e.toString());
                return java.util.Optional.empty();
            }
        }

        /** The window that owns the tray selection now, 0 when no tray host does. One round trip. */
        long owner() {
            return x.XGetSelectionOwner(display, atom).longValue();
        }

        @Override
        public void close() {
            x.XCloseDisplay(display);
        }
    }
}
