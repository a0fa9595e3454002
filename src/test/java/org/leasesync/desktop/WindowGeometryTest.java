package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.desktop.WindowGeometry.Area;

/** Where the window opens: the first-start size and a saved geometry fitted to the screens there now. */
@Timeout(10)
class WindowGeometryTest {

    /** A 1366 × 768 laptop screen with a 24 px panel at the bottom. */
    static final Area LAPTOP = new Area(0, 0, 1366, 744);
    /** A 1920 × 1080 monitor to its right. */
    static final Area RIGHT = new Area(1366, 0, 1920, 1080);

    static WindowGeometry saved(double x, double y, double w, double h) {
        return new WindowGeometry(x, y, w, h, false);
    }

    @Test
    void aFirstStartFitsTheWorkAreaAndIsCentredOnIt() {
        assertThat(WindowGeometry.place(Optional.empty(), List.of(LAPTOP)))
                .isEqualTo(new WindowGeometry(93, 0, 1180, 744, false));
        assertThat(WindowGeometry.place(Optional.empty(), List.of(new Area(0, 0, 1920, 1050))))
                .isEqualTo(new WindowGeometry(370, 135, 1180, 780, false));
    }

    @Test
    void aSavedGeometryOnAScreenIsKept() {
        assertThat(WindowGeometry.place(Optional.of(saved(100, 60, 900, 600)), List.of(LAPTOP, RIGHT)))
                .isEqualTo(saved(100, 60, 900, 600));
        assertThat(WindowGeometry.place(
                        Optional.of(new WindowGeometry(1500, 100, 900, 600, true)), List.of(LAPTOP, RIGHT)))
                .isEqualTo(new WindowGeometry(1500, 100, 900, 600, true));
    }

    @Test
    void aSavedGeometryPartlyOffItsScreenIsMovedOntoItAndShrunkToFit() {
        // hanging off the bottom: moved up
        assertThat(WindowGeometry.place(Optional.of(saved(200, 400, 900, 600)), List.of(LAPTOP)))
                .isEqualTo(saved(200, 144, 900, 600));
        // taller than the work area: made as tall as it, at its top
        assertThat(WindowGeometry.place(Optional.of(saved(100, 20, 1000, 900)), List.of(LAPTOP)))
                .isEqualTo(saved(100, 0, 1000, 744));
        // on the right monitor, hanging off its right edge: moved left on that monitor
        assertThat(WindowGeometry.place(Optional.of(saved(3000, 100, 800, 600)), List.of(LAPTOP, RIGHT)))
                .isEqualTo(saved(3286 - 800, 100, 800, 600));
    }

    @Test
    void aSavedGeometryOnAMonitorThatIsGoneComesBackCentredOnThePrimary() {
        assertThat(WindowGeometry.place(Optional.of(saved(2400, 300, 1000, 900)), List.of(LAPTOP)))
                .isEqualTo(saved(183, 0, 1000, 744));
        assertThat(WindowGeometry.place(Optional.of(saved(-900, -500, 800, 500)), List.of(LAPTOP)))
                .isEqualTo(saved(283, 122, 800, 500));
    }

    @Test
    void theMinimumWinsOverAScreenSmallerThanIt() {
        assertThat(WindowGeometry.place(Optional.empty(), List.of(new Area(0, 0, 640, 460))))
                .isEqualTo(new WindowGeometry(0, 0, WindowGeometry.MIN_WIDTH, WindowGeometry.MIN_HEIGHT, false));
        assertThat(WindowGeometry.place(Optional.of(saved(10, 10, 300, 200).atLeastMinimum()), List.of(LAPTOP)))
                .isEqualTo(saved(10, 10, WindowGeometry.MIN_WIDTH, WindowGeometry.MIN_HEIGHT));
    }

    @Test
    void noScreenIsRefused() {
        assertThatThrownBy(() -> WindowGeometry.place(Optional.empty(), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no screen");
    }
}
