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

        NativeLong XRootWindow(Pointer display, int screen);

        NativeLong XInternAtom(Pointer display, String name, int onlyIfExists);

        NativeLong XGetSelectionOwner(Pointer display, NativeLong selection);

        int XSelectInput(Pointer display, NativeLong window, NativeLong eventMask);

        int XPending(Pointer display);

        int XConnectionNumber(Pointer display);

        int XNextEvent(Pointer display, Pointer event);

        int XCloseDisplay(Pointer display);
    }

    /** A connection of our own to one X server, with the tray selection's atom of its default screen. */
    private static final class Connection {
        final Xlib x;
        final Pointer display;
        final int screen;
        /** 0 when {@code onlyIfExists} was asked and no tray host ever claimed the selection. */
        final NativeLong atom;

        private Connection(Xlib x, Pointer display, boolean onlyIfExists) {
            this.x = x;
            this.display = display;
            this.screen = x.XDefaultScreen(display);
            this.atom = x.XInternAtom(display, "_NET_SYSTEM_TRAY_S" + screen, onlyIfExists ? 1 : 0);
        }

        /** Opens a connection, or empty when libX11 cannot be loaded or the display cannot be opened. */
        static java.util.Optional<Connection> open(String name, boolean onlyIfExists) {
            Objects.requireNonNull(name, "display");
            try {
                Xlib x = Native.load("X11", Xlib.class);
                Pointer d = x.XOpenDisplay(name);
                if (d == null) {
                    log.debug("tray host: cannot open X display {}", name);
                    return java.util.Optional.empty();
                }
                return java.util.Optional.of(new Connection(x, d, onlyIfExists));
            } catch (RuntimeException | LinkageError e) {
                log.debug("tray host: cannot ask the X server ({})", e.toString());
                return java.util.Optional.empty();
            }
        }

        long owner() {
            return atom.longValue() == 0
                    ? 0
                    : x.XGetSelectionOwner(display, atom).longValue();
        }

        void close() {
            x.XCloseDisplay(display);
        }
    }

    private XTrayHost() {}

    /**
     * Asks the X server of {@code display} whether a tray host owns {@code _NET_SYSTEM_TRAY_S<n>} of
     * its default screen.
     *
     * @param display an X display name such as {@code :0} or {@code host:1.0} (normally {@code $DISPLAY})
     * @return the answer; {@link Answer#UNKNOWN} when libX11 cannot be loaded, the display cannot be
     *         opened or anything else fails (never throws)
     */
    static Answer query(String display) {
        java.util.Optional<Connection> opened = Connection.open(display, true);
        if (opened.isEmpty()) {
            return Answer.UNKNOWN;
        }
        Connection c = opened.get();
        try {
            return c.owner() == 0 ? Answer.ABSENT : Answer.PRESENT;
        } catch (RuntimeException | LinkageError e) {
            log.debug("tray host: cannot ask the X server ({}); asking AWT", e.toString());
            return Answer.UNKNOWN;
        } finally {
            c.close();
        }
    }

    /**
     * Watches the tray selection on a connection of its own, so that every tray host that starts is
     * seen, including one that AWT misses. The system tray specification has each new tray host
     * announce itself with a {@code MANAGER} client message to the root window; those messages queue
     * on this connection between two {@link #poll()} calls, so a host that came and went, or one
     * whose window got the same id as the one before it (the X server hands a restarted client's ids
     * out again), is seen all the same, which comparing the owner's window id alone does not do.
     * {@link #await} sleeps until such a message arrives, so a watch costs nothing while no tray host
     * starts.
     *
     * <p>Not thread-safe: one thread calls {@link #await}, {@link #poll()} and {@link #close()};
     * {@link #wake()} may be called from any thread.
     */
    static final class OwnerWatch implements AutoCloseable {
        /** {@code StructureNotifyMask}: the mask the specification sends {@code MANAGER} with. */
        private static final long STRUCTURE_NOTIFY_MASK = 1L << 17;
        /** {@code ClientMessage} event type. */
        private static final int CLIENT_MESSAGE = 33;
        /** {@code sizeof(XEvent)}: a union padded to 24 C longs. */
        private static final int XEVENT_SIZE = 24 * Native.LONG_SIZE;
        /** {@code POLLIN} of poll(2). */
        private static final short POLLIN = 1;

        private final Connection c;
        private final NativeLong manager;
        private final com.sun.jna.Memory event = new com.sun.jna.Memory(XEVENT_SIZE);
        /** Two {@code struct pollfd} (int fd, short events, short revents): the X connection, the wake pipe. */
        private final com.sun.jna.Memory pollFds = new com.sun.jna.Memory(16);
        /** The wake pipe's read and write ends; -1 when it could not be made ({@link #await} then only times out). */
        private final int[] pipe = {-1, -1};

        private final Object pipeLock = new Object();
        private boolean closed;
        private long lastOwner;

        private OwnerWatch(Connection c) {
            this.c = c;
            this.manager = c.x.XInternAtom(c.display, "MANAGER", 0);
            c.x.XSelectInput(c.display, c.x.XRootWindow(c.display, c.screen), new NativeLong(STRUCTURE_NOTIFY_MASK));
            this.lastOwner = c.owner();
            if (libc("pipe", pipe) != 0) {
                pipe[0] = -1;
                pipe[1] = -1;
            }
            pollFds.setInt(0, c.x.XConnectionNumber(c.display));
            pollFds.setShort(4, POLLIN);
            pollFds.setInt(8, pipe[0]);
            pollFds.setShort(12, POLLIN);
        }

        private static int libc(String function, Object... args) {
            return com.sun.jna.Function.getFunction("c", function).invokeInt(args);
        }

        /**
         * Opens a connection to {@code display} for watching.
         *
         * @return the watch, or empty when libX11 or the display cannot be had (never throws)
         */
        static java.util.Optional<OwnerWatch> open(String display) {
            java.util.Optional<Connection> opened = Connection.open(display, false);
            try {
                return opened.map(OwnerWatch::new);
            } catch (RuntimeException | LinkageError e) {
                opened.ifPresent(Connection::close);
                log.debug("tray host: cannot watch the selection ({})", e.toString());
                return java.util.Optional.empty();
            }
        }

        /**
         * What happened to the tray selection since the last poll (or since {@link #open}).
         *
         * @param owner the window that owns the selection now; 0 when no tray host does
         * @param newHost a tray host started since the last poll and owns the selection now
         */
        record Seen(long owner, boolean newHost) {}

        /**
         * Blocks until the X server sends this connection an event (such as a new host's
         * {@code MANAGER}), {@link #wake()} is called, or {@code timeoutMillis} pass.
         *
         * @return true when events wait for {@link #poll()}; false on a timeout or a wake
         */
        boolean await(long timeoutMillis) {
            if (c.x.XPending(c.display) > 0) { // also sends what is buffered, as poll(2) needs
                return true;
            }
            pollFds.setShort(6, (short) 0);
            pollFds.setShort(14, (short) 0);
            int ready = libc("poll", pollFds, pipe[0] < 0 ? 1 : 2, (int) Math.min(Integer.MAX_VALUE, timeoutMillis));
            if (ready > 0 && pollFds.getShort(14) != 0) {
                libc("read", pipe[0], new byte[16], 16);
            }
            return ready > 0 && pollFds.getShort(6) != 0;
        }

        /** Ends an {@link #await} under way (or the next one) early. Any thread; never throws. */
        void wake() {
            synchronized (pipeLock) {
                if (!closed && pipe[1] >= 0) {
                    libc("write", pipe[1], new byte[] {1}, 1);
                }
            }
        }

        /** Reads the queued events (no round trip when there are none) and asks the owner (one round trip). */
        Seen poll() {
            boolean announced = false;
            while (c.x.XPending(c.display) > 0) {
                c.x.XNextEvent(c.display, event);
                if (event.getInt(0) == CLIENT_MESSAGE
                        && event.getNativeLong(5L * Native.LONG_SIZE).equals(manager)
                        && event.getNativeLong(8L * Native.LONG_SIZE).equals(c.atom)) {
                    announced = true; // data.l[1] is the selection the new manager took
                }
            }
            long owner = c.owner();
            boolean changed = owner != lastOwner;
            lastOwner = owner;
            return new Seen(owner, owner != 0 && (announced || changed));
        }

        @Override
        public void close() {
            synchronized (pipeLock) {
                if (closed) {
                    return;
                }
                closed = true;
                for (int fd : pipe) {
                    if (fd >= 0) {
                        libc("close", fd);
                    }
                }
            }
            c.close();
        }
    }
}
