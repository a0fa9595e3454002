package org.leasesync.desktop.notify;

import java.util.List;
import java.util.Map;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.messages.DBusSignal;
import org.freedesktop.dbus.types.UInt32;
import org.freedesktop.dbus.types.Variant;

/**
 * The part of the freedesktop Desktop Notifications Specification (interface
 * {@code org.freedesktop.Notifications} at {@code /org/freedesktop/Notifications} on the session
 * bus) that leasesync uses, for dbus-java's proxies. Method and signal names are the
 * specification's.
 */
@DBusInterfaceName("org.freedesktop.Notifications")
public interface FreedesktopNotifications extends DBusInterface {

    /** The bus name of the notification service. */
    String BUS_NAME = "org.freedesktop.Notifications";
    /** Its object path. */
    String OBJECT_PATH = "/org/freedesktop/Notifications";

    /**
     * Shows a notification.
     *
     * @param actions pairs of action key and label; the key {@code default} is the click on the notification
     * @param expireTimeout milliseconds; -1 lets the server decide, 0 never expires
     * @return the notification's id
     */
    @SuppressWarnings("checkstyle:MethodName")
    UInt32 Notify(
            String appName,
            UInt32 replacesId,
            String appIcon,
            String summary,
            String body,
            List<String> actions,
            Map<String, Variant<?>> hints,
            int expireTimeout);

    /** Closes a notification. */
    void CloseNotification(UInt32 id);

    /** What the server supports, e.g. {@code actions}, {@code body}. */
    List<String> GetCapabilities();

    /** The user invoked an action of a notification ({@code default}: clicked it). */
    class ActionInvoked extends DBusSignal {
        private final UInt32 id;
        private final String actionKey;

        public ActionInvoked(String path, UInt32 id, String actionKey) throws DBusException {
            super(path, id, actionKey);
            this.id = id;
            this.actionKey = actionKey;
        }

        public UInt32 id() {
            return id;
        }

        public String actionKey() {
            return actionKey;
        }
    }

    /** A notification was closed (expired, dismissed, closed by a call, other). */
    class NotificationClosed extends DBusSignal {
        private final UInt32 id;
        private final UInt32 reason;

        public NotificationClosed(String path, UInt32 id, UInt32 reason) throws DBusException {
            super(path, id, reason);
            this.id = id;
            this.reason = reason;
        }

        public UInt32 id() {
            return id;
        }

        public UInt32 reason() {
            return reason;
        }
    }
}
