package org.leasesync.desktop.notify;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.DBusSigHandler;
import org.freedesktop.dbus.types.UInt32;
import org.freedesktop.dbus.types.Variant;
import org.leasesync.keyring.SessionBus;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.TaskKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Desktop notifications through the freedesktop notification service on the session D-Bus, with
 * dbus-java (its transport on the JDK's own Unix domain sockets). Each notification offers the
 * {@code default} action; when the user clicks it, the service sends {@code ActionInvoked} and
 * the listener is told which key the notification was about.
 *
 * <p>Thread-safe. {@link #show} blocks for one call on the bus. Signals arrive on dbus-java's
 * threads; the click listener must hand over to the FX thread.
 */
public final class DbusNotifier implements Notifier {

    private static final Logger log = LoggerFactory.getLogger(DbusNotifier.class);

    /** The menu entry's file name without {@code .desktop}, as jpackage names it ({@code PACKAGE-NAME}). */
    static final String DESKTOP_ENTRY = "leasesync-leasesync";

    private final DBusConnection bus;
    private final FreedesktopNotifications service;
    private final Consumer<TaskKey> clicked;
    private final String openLabel;
    private final Map<UInt32, TaskKey> shown = new ConcurrentHashMap<>();
    private final DBusSigHandler<FreedesktopNotifications.ActionInvoked> onAction;
    private final DBusSigHandler<FreedesktopNotifications.NotificationClosed> onClosed;
    private final Optional<NotificationIcon> icon = NotificationIcon.load();

    private DbusNotifier(DBusConnection bus, String openLabel, Consumer<TaskKey> clicked) throws DBusException {
        this.bus = bus;
        this.clicked = clicked;
        this.openLabel = openLabel;
        this.service = bus.getRemoteObject(
                FreedesktopNotifications.BUS_NAME,
                FreedesktopNotifications.OBJECT_PATH,
                FreedesktopNotifications.class);
        this.onAction = s -> {
            TaskKey key = shown.get(s.id());
            if (key != null && "default".equals(s.actionKey())) {
                log.info("notification {} about {} clicked", s.id(), key);
                clicked.accept(key);
            }
        };
        this.onClosed = s -> shown.remove(s.id());
        bus.addSigHandler(FreedesktopNotifications.ActionInvoked.class, onAction);
        bus.addSigHandler(FreedesktopNotifications.NotificationClosed.class, onClosed);
    }

    /**
     * The desktop's notifier, as the window and the tray process use it: connected to the session
     * bus's notification service when there is a bus on a socket path, else {@link Notifier#NONE}
     * (logged once, with why). Connecting blocks on the bus: call the function off the UI thread.
     *
     * @param m the texts; the notifications' button says {@code notify.action.open}
     * @return a function from what a click on a notification calls (the key it is about) to the notifier
     */
    public static java.util.function.Function<Consumer<TaskKey>, Notifier> ofSession(org.leasesync.desktop.Messages m) {
        return clicked -> sessionBusAddress(System.getenv())
                .<Notifier>map(address -> {
                    try {
                        return connect(address, m.get("notify.action.open"), clicked);
                    } catch (RuntimeException e) {
                        log.info("no desktop notifications: {}", e.getMessage());
                        return Notifier.NONE;
                    }
                })
                .orElseGet(() -> {
                    log.info("no desktop notifications: no session bus on a socket path (DBUS_SESSION_BUS_ADDRESS)");
                    return Notifier.NONE;
                });
    }

    /**
     * The session bus address, as the keyring finds it ({@link SessionBus#address}): one lookup for
     * both users of the bus.
     *
     * @return the address, or empty with nothing to connect to
     */
    public static Optional<String> sessionBusAddress(Map<String, String> env) {
        return SessionBus.address(env);
    }

    /**
     * Connects to the bus at {@code address}. The notification service itself may start later
     * (D-Bus activation starts it with the first notification).
     *
     * @param openLabel the label of the notifications' default action ("Open")
     * @param clicked told the key of a notification the user clicked (on a D-Bus thread)
     * @throws LeasesyncException if the bus cannot be reached, with the address and the reason
     */
    public static DbusNotifier connect(String address, String openLabel, Consumer<TaskKey> clicked) {
        Objects.requireNonNull(clicked, "clicked");
        DBusConnection c = null;
        try {
            c = DBusConnectionBuilder.forAddress(address).withShared(false).build();
            return new DbusNotifier(c, openLabel, clicked);
        } catch (DBusException | RuntimeException e) {
            if (c != null) {
                c.disconnect();
            }
            throw new LeasesyncException("cannot reach the session bus at " + address + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean available() {
        return bus.isConnected();
    }

    @Override
    public long show(NotificationPolicy.Notice n, long replaces) {
        byte urgency = (byte)
                (n.kind() == NotificationPolicy.Notice.Kind.NEEDS_ATTENTION
                                || n.kind() == NotificationPolicy.Notice.Kind.SIGNED_OUT
                        ? 2
                        : 1); // critical : normal
        Map<String, Variant<?>> hints = new java.util.HashMap<>();
        hints.put("urgency", new Variant<>(urgency));
        hints.put(
                "category",
                new Variant<>(n.kind() == NotificationPolicy.Notice.Kind.CONFLICT ? "transfer" : "transfer.error"));
        // the icon: the menu entry's (installed) and the pixels themselves (any way it runs)
        hints.put("desktop-entry", new Variant<>(DESKTOP_ENTRY));
        icon.ifPresent(i -> hints.put("image-data", new Variant<>(i, NotificationIcon.SIGNATURE)));
        try {
            UInt32 id = service.Notify(
                    "leasesync",
                    new UInt32(replaces),
                    "",
                    n.title(),
                    n.body(),
                    List.of("default", openLabel),
                    hints,
                    -1);
            if (replaces != 0 && id.longValue() != replaces) {
                shown.remove(new UInt32(replaces));
            }
            shown.put(id, n.key());
            log.info(
                    "notification {} shown{}: {}", id, replaces == 0 ? "" : " (replacing " + replaces + ")", n.title());
            return id.longValue();
        } catch (DBusExecutionException | LinkageError e) {
            log.warn("the notification service did not take a notification ({}): {}", n.title(), e.getMessage());
            return 0;
        } catch (RuntimeException e) {
            log.warn("could not show a notification ({}): {}", n.title(), e.toString());
            return 0;
        }
    }

    @Override
    public boolean isOpen(long id) {
        return id != 0 && shown.containsKey(new UInt32(id));
    }

    @Override
    public void withdraw(long id) {
        if (id == 0 || shown.remove(new UInt32(id)) == null) {
            return;
        }
        try {
            service.CloseNotification(new UInt32(id));
            log.info("notification {} withdrawn", id);
        } catch (DBusExecutionException | LinkageError e) {
            log.warn("the notification service did not withdraw notification {}: {}", id, e.getMessage());
        } catch (RuntimeException e) {
            log.warn("could not withdraw notification {}: {}", id, e.toString());
        }
    }

    @Override
    public void close() {
        try {
            bus.removeSigHandler(FreedesktopNotifications.ActionInvoked.class, onAction);
            bus.removeSigHandler(FreedesktopNotifications.NotificationClosed.class, onClosed);
        } catch (DBusException | RuntimeException e) {
            log.debug("removing the signal handlers: {}", e.toString());
        }
        try {
            bus.close();
        } catch (java.io.IOException | RuntimeException e) {
            log.debug("closing the bus connection: {}", e.toString());
        }
    }
}
