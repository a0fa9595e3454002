package org.leasesync.desktop.tray;

import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;

/**
 * What the tray shows for the cards of the signed-in account, the same whether the window or the
 * windowless tray process ({@code desktop.resident}) computes it: the icon's state is the worst of
 * the cards' ({@link TrayState#worst}), the tooltip that state and the last successful sync, the
 * menu Pause or Resume. Stateless and thread-safe.
 */
public final class TrayViews {

    private TrayViews() {}

    /**
     * @param shown the kind each card shows, overlays (pause, offline, conflicts, signed out) applied
     * @param lastSuccess the latest successful sync of any of the cards; empty if none ever succeeded
     * @param conflicts the conflicts waiting over all the cards (the tooltip's count in the conflicts state)
     * @param paused whether syncing is paused (the menu offers Resume)
     * @param now the wall clock, to say "5 minutes ago" or "at 14:05"
     */
    public static TrayPort.TrayView of(
            Collection<KeyStatus.Kind> shown,
            Optional<Instant> lastSuccess,
            int conflicts,
            boolean paused,
            Messages messages,
            Instant now) {
        TrayState state = TrayState.worst(shown);
        // the count is what the user has to do: "2 conflicts to resolve", as on the cards
        String label = state == TrayState.CONFLICTS
                ? messages.get("card.conflicts", conflicts)
                : messages.get("state." + state.name());
        String tooltip = lastSuccess
                .map(t -> messages.get("tray.tooltip", label, messages.moment(t, now)))
                .orElseGet(() -> messages.get("tray.tooltip.never", label));
        return new TrayPort.TrayView(state, tooltip, paused);
    }
}
