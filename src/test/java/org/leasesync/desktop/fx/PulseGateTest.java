package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.onFx;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.animation.AnimationTimer;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.leasesync.testing.FxTest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** JavaFX's pulse timer stops while no window shows and runs, animating again, once one shows. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class PulseGateTest {

    Stage stage;
    Optional<PulseGate> gate = Optional.empty();

    @Start
    void start(Stage stage) {
        this.stage = stage;
        stage.setScene(new Scene(new Label("pulse"), 200, 100));
        stage.show();
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        robot.interact(() -> {
            gate.ifPresent(PulseGate::close);
            if (!stage.isShowing()) {
                stage.show();
            }
        });
    }

    static boolean pulseRunning() {
        return onFx(() -> PulseGate.ToolkitPulse.find().orElseThrow().running());
    }

    @Test
    void thePulseStopsWhileNoWindowShowsAndAnimatesAgainWhenOneShows(FxRobot robot) {
        robot.interact(() -> gate = PulseGate.installOnToolkit());
        assertThat(gate).as("this JavaFX's pulse timer is reachable").isPresent();
        assertThat(pulseRunning()).isTrue();

        robot.interact(stage::hide);
        assertThat(pulseRunning()).as("no window shows: the timer is stopped").isFalse();

        AtomicInteger frames = new AtomicInteger();
        AnimationTimer counter = new AnimationTimer() {
            @Override
            public void handle(long now) {
                frames.incrementAndGet();
            }
        };
        robot.interact(() -> {
            counter.start();
            stage.show();
        });
        try {
            assertThat(pulseRunning()).as("a window shows: the timer runs").isTrue();
            waitUntil("animation frames after the window shows again", () -> frames.get() >= 3);
        } finally {
            robot.interact(counter::stop);
        }
    }

    @Test
    void closingTheGateLeavesThePulseRunningAndNoLongerFollowsTheWindows(FxRobot robot) {
        robot.interact(() -> gate = PulseGate.installOnToolkit());
        robot.interact(stage::hide);
        assertThat(pulseRunning()).isFalse();
        robot.interact(() -> gate.orElseThrow().close());
        assertThat(pulseRunning()).as("closed: JavaFX's own pulse again").isTrue();
        robot.interact(stage::show);
        robot.interact(stage::hide);
        assertThat(pulseRunning()).isTrue();
    }
}
