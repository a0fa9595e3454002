package org.leasesync.desktop.fx;

import javafx.animation.PauseTransition;
import javafx.scene.control.Button;
import javafx.util.Duration;

/**
 * Keeps a button that has just appeared disabled for a moment, so a click meant for whatever was
 * under the pointer before (the second click of a double-click, a click as an automatic retry
 * starts) cannot trigger it. FX thread only.
 */
final class ArmDelay {

    /** Longer than a slow double-click (desktops default to 400-500 ms) plus a reaction. */
    static final Duration DEFAULT = Duration.seconds(1);

    private ArmDelay() {}

    /** Every time {@code button} becomes visible, it is disabled for {@code delay}, then enabled. */
    static void afterAppearing(Button button, Duration delay) {
        PauseTransition arming = new PauseTransition(delay);
        arming.setOnFinished(e -> button.setDisable(false));
        button.visibleProperty().addListener((o, was, visible) -> {
            arming.stop();
            button.setDisable(visible);
            if (visible) {
                arming.playFromStart();
            }
        });
        button.setDisable(button.isVisible());
        if (button.isVisible()) {
            arming.playFromStart();
        }
    }
}
