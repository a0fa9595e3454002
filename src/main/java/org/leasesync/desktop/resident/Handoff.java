package org.leasesync.desktop.resident;

import java.util.Objects;
import java.util.Optional;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.SingleInstance;
import org.leasesync.desktop.StartOptions;
import org.leasesync.lease.Scope;

/**
 * What the tray process hands to the window it opens in the same JVM.
 *
 * @param backend the started backend (local database, embedded server, coordinator), now the window's
 *     to close; empty when the tray process could not start it (the window starts it again and shows
 *     why it fails, as any start does)
 * @param instance this process's hold on the data directory's one window
 * @param options the start options in force
 * @param user the account the tray process showed; empty when none was chosen
 * @param at the card to open at (a notification about it was clicked)
 * @param settings whether to open the settings dialog (the tray menu's Settings…)
 */
public record Handoff(
        Optional<Backend> backend,
        SingleInstance instance,
        StartOptions options,
        Optional<String> user,
        Optional<Scope> at,
        boolean settings) {
    public Handoff {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(at, "at");
    }
}
