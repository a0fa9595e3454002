package org.leasesync.desktop.tray;

import java.util.Collection;
import org.leasesync.desktop.KeyStatus;

/**
 * What the tray icon shows: the worst state among the signed-in account's cards. Declared from
 * best to worst; {@link #worst} picks the last one present.
 */
public enum TrayState {
    UP_TO_DATE(0x1A7F37),
    SYNCING(0x54AEFF),
    PAUSED(0x6E7781),
    OFFLINE(0x24292F),
    /** Conflicts wait for the user: nothing is broken, but only the user can settle them. */
    CONFLICTS(0xBC4C00),
    FAILED(0xCF222E),
    /** The server refused the session: nothing syncs until the user signs in again. */
    SIGNED_OUT(0x8250DF),
    NEEDS_ATTENTION(0xD4A72C);

    private final int badgeRgb;

    TrayState(int badgeRgb) {
        this.badgeRgb = badgeRgb;
    }

    /** The colour of the icon's badge, 0xRRGGBB. */
    public int badgeRgb() {
        return badgeRgb;
    }

    /** The tray state of one card's shown state. Not synced yet and cancelled count as up to date. */
    public static TrayState of(KeyStatus.Kind shown) {
        return switch (shown) {
            case NEVER_SYNCED, IDLE, CANCELLED -> UP_TO_DATE;
            case RUNNING -> SYNCING;
            case PAUSED -> PAUSED;
            case OFFLINE -> OFFLINE;
            case CONFLICTS -> CONFLICTS;
            case FAILED -> FAILED;
            case NEEDS_ATTENTION -> NEEDS_ATTENTION;
            case SIGNED_OUT -> SIGNED_OUT;
        };
    }

    /** The worst of the cards' shown states; up to date when there are none. */
    public static TrayState worst(Collection<KeyStatus.Kind> shown) {
        TrayState w = UP_TO_DATE;
        for (KeyStatus.Kind k : shown) {
            TrayState t = of(k);
            if (t.ordinal() > w.ordinal()) {
                w = t;
            }
        }
        return w;
    }
}
