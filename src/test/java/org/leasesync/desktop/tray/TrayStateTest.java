package org.leasesync.desktop.tray;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.KeyStatus;

public class TrayStateTest {

    @Test
    void theIconShowsTheWorstCard() {
        assertThat(TrayState.worst(List.of())).isEqualTo(TrayState.UP_TO_DATE);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.IDLE, KeyStatus.Kind.NEVER_SYNCED, KeyStatus.Kind.CANCELLED)))
                .isEqualTo(TrayState.UP_TO_DATE);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.IDLE, KeyStatus.Kind.RUNNING)))
                .isEqualTo(TrayState.SYNCING);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.RUNNING, KeyStatus.Kind.PAUSED)))
                .isEqualTo(TrayState.PAUSED);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.PAUSED, KeyStatus.Kind.OFFLINE)))
                .isEqualTo(TrayState.OFFLINE);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.OFFLINE, KeyStatus.Kind.FAILED, KeyStatus.Kind.RUNNING)))
                .isEqualTo(TrayState.FAILED);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.FAILED, KeyStatus.Kind.NEEDS_ATTENTION, KeyStatus.Kind.IDLE)))
                .isEqualTo(TrayState.NEEDS_ATTENTION);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.NEEDS_ATTENTION, KeyStatus.Kind.IDLE)))
                .isEqualTo(TrayState.NEEDS_ATTENTION);
    }

    @Test
    void conflictsAreWorseThanUpToDateAndOfflineAndBetterThanAFailure() {
        assertThat(TrayState.of(KeyStatus.Kind.CONFLICTS)).isEqualTo(TrayState.CONFLICTS);
        assertThat(TrayState.worst(List.of(
                        KeyStatus.Kind.IDLE,
                        KeyStatus.Kind.CONFLICTS,
                        KeyStatus.Kind.RUNNING,
                        KeyStatus.Kind.PAUSED,
                        KeyStatus.Kind.OFFLINE)))
                .isEqualTo(TrayState.CONFLICTS);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.CONFLICTS, KeyStatus.Kind.FAILED)))
                .isEqualTo(TrayState.FAILED);
    }

    @Test
    void everyStateShowsItsOwnBadgeColourAndNoOtherStatesColour() {
        TrayIcons icons = new TrayIcons();
        for (int size : new int[] {16, 22, 24, 32, 48}) {
            for (TrayState s : TrayState.values()) {
                BufferedImage img = icons.draw(s, size);
                assertThat(img.getWidth()).isEqualTo(size);
                long own = pixelsNear(img, s.badgeRgb());
                assertThat(own).as("%s at %d px", s, size).isGreaterThanOrEqualTo(badgeArea(size) / 3);
                for (TrayState other : TrayState.values()) {
                    if (other != s) {
                        assertThat(pixelsNear(img, other.badgeRgb()))
                                .as("%s in the icon of %s at %d px", other, s, size)
                                .isLessThan(own / 4);
                    }
                }
            }
        }
    }

    /** The pixels of {@code img} within a small distance of {@code rgb} in every channel. */
    public static long pixelsNear(BufferedImage img, int rgb) {
        long n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                int argb = img.getRGB(x, y);
                if ((argb >>> 24) > 200 && close(argb & 0xFFFFFF, rgb)) {
                    n++;
                }
            }
        }
        return n;
    }

    static long badgeArea(int size) {
        double r = size * 0.30;
        return Math.round(Math.PI * r * r);
    }

    @Test
    void theAppIconIsUnderTheBadge() {
        BufferedImage img = new TrayIcons().draw(TrayState.UP_TO_DATE, 24);
        int topLeftish = img.getRGB(6, 6) & 0xFFFFFF; // the blue of leasesync.png, far from the badge
        assertThat(close(topLeftish, 0x2F5BB7) || (topLeftish & 0xFF) > 0x90)
                .as("%06x", topLeftish)
                .isTrue();
    }

    static boolean close(int a, int b) {
        for (int shift = 0; shift <= 16; shift += 8) {
            if (Math.abs(((a >> shift) & 0xFF) - ((b >> shift) & 0xFF)) > 24) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aSignedOutCardRanksAboveFailedAndNoOverlayCoversIt() {
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.FAILED, KeyStatus.Kind.SIGNED_OUT, KeyStatus.Kind.OFFLINE)))
                .isEqualTo(TrayState.SIGNED_OUT);
        assertThat(TrayState.worst(List.of(KeyStatus.Kind.SIGNED_OUT, KeyStatus.Kind.NEEDS_ATTENTION)))
                .isEqualTo(TrayState.NEEDS_ATTENTION);
        java.time.Instant now = java.time.Instant.parse("2026-11-30T10:00:00Z");
        org.leasesync.desktop.CardOverlay offline = org.leasesync.desktop.CardOverlay.none(now)
                .withOffline(java.util.Optional.of(now.plusSeconds(5)), java.util.Map.of(), now);
        assertThat(offline.shown(KeyStatus.Kind.SIGNED_OUT)).isEqualTo(KeyStatus.Kind.SIGNED_OUT);
        assertThat(offline.shown(KeyStatus.Kind.FAILED)).isEqualTo(KeyStatus.Kind.OFFLINE);
    }
}
