package org.leasesync.desktop.resident;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.lease.TaskKey;

/**
 * The desktop the tray process lives on, as {@link ResidentAssembly} uses it.
 *
 * @param tray the system tray
 * @param notifier connects to the notification service, told whom to call on a click; called once,
 *     on the {@code notifier} thread
 * @param probeFirst the first wait between probes while offline
 * @param probeMax the longest wait between probes while offline
 */
public record TrayDesktop(
        TrayPort tray, Function<Consumer<TaskKey>, Notifier> notifier, Duration probeFirst, Duration probeMax) {
    public TrayDesktop {
        Objects.requireNonNull(tray, "tray");
        Objects.requireNonNull(notifier, "notifier");
        Objects.requireNonNull(probeFirst, "probeFirst");
        Objects.requireNonNull(probeMax, "probeMax");
    }
}
