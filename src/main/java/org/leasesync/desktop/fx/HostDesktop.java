package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.notify.DbusNotifier;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.desktop.tray.AwtTray;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.lease.TaskKey;

/**
 * The desktop the window lives on, for {@link AppAssembly}: the real tray, notification service,
 * autostart entry and exit in the app ({@link #system}); recording or absent ones in the UI tests.
 *
 * @param messages the texts, locale and time zone
 * @param tray the system tray
 * @param notifier connects to the notification service; told whom to call when a notification is
 *     clicked; called once, off the FX thread
 * @param autostart the start-at-login entry
 * @param implicitExit {@code Platform::setImplicitExit}
 * @param exit ends the app ({@code Platform::exit})
 * @param probeFirst the first wait between probes while offline
 * @param probeMax the longest wait between probes while offline
 */
record HostDesktop(
        Messages messages,
        TrayPort tray,
        Function<Consumer<TaskKey>, Notifier> notifier,
        Autostart autostart,
        Consumer<Boolean> implicitExit,
        Runnable exit,
        Duration probeFirst,
        Duration probeMax) {

    /** The first wait between probes of an unreachable server. */
    static final Duration PROBE_FIRST = Duration.ofSeconds(5);
    /** The longest wait between probes of an unreachable server. */
    static final Duration PROBE_MAX = Duration.ofMinutes(1);

    HostDesktop {
        Objects.requireNonNull(messages, "messages");
        Objects.requireNonNull(tray, "tray");
        Objects.requireNonNull(notifier, "notifier");
        Objects.requireNonNull(autostart, "autostart");
        Objects.requireNonNull(implicitExit, "implicitExit");
        Objects.requireNonNull(exit, "exit");
    }

    /**
     * The real desktop: AWT's tray, the session bus's notification service (none without a bus),
     * the user's XDG autostart directory, {@code Platform.exit}.
     *
     * @param autostartArgs arguments the autostart entry adds to the launcher (e.g. {@code --data-dir})
     * @param m the texts in the window's language
     */
    static HostDesktop system(List<String> autostartArgs, Messages m) {
        Function<Consumer<TaskKey>, Notifier> notifier = DbusNotifier.ofSession(m);
        return new HostDesktop(
                m,
                new AwtTray(m),
                notifier,
                new Autostart(
                        Autostart.configHome(System.getenv(), System.getProperty("user.home")),
                        Autostart.dataHome(System.getenv(), System.getProperty("user.home")),
                        Autostart.launcherCommand(autostartArgs)),
                javafx.application.Platform::setImplicitExit,
                javafx.application.Platform::exit,
                PROBE_FIRST,
                PROBE_MAX);
    }
}
