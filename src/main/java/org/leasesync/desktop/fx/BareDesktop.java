package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.util.Optional;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.desktop.tray.TrayPort;

/**
 * A {@link HostDesktop} with nothing of the desktop in it: no tray, no notifications, no start at
 * login, an exit that does nothing. The UI tests that do not test those parts build their window on
 * it. Kept out of {@link AppAssembly}, which wires a window on whatever desktop it is given and has
 * no business knowing what an absent one looks like.
 */
final class BareDesktop {

    private BareDesktop() {}

    /** A desktop without a tray, notifier or autostart; its autostart files (never written) would be under {@code dataDir}. */
    static HostDesktop of(Path dataDir) {
        return new HostDesktop(
                Messages.system(),
                NoTray.INSTANCE,
                clicked -> Notifier.NONE,
                new Autostart(dataDir.resolve("no-autostart"), dataDir.resolve("no-autostart"), Optional.empty()),
                exit -> {},
                () -> {},
                HostDesktop.PROBE_FIRST,
                HostDesktop.PROBE_MAX);
    }

    /** A desktop without a tray. */
    enum NoTray implements TrayPort {
        INSTANCE;

        @Override
        public boolean install(TrayMenu menu, TrayView initial) {
            return false;
        }

        @Override
        public void show(TrayView view) {}

        @Override
        public void remove() {}

        @Override
        public boolean iconShown() {
            return false;
        }
    }
}
