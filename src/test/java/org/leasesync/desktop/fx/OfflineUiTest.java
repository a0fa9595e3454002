package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** A real reference server that is down when the window opens and comes back on its port. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class OfflineUiTest {

    static final TaskKey COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Stage stage;
    BackgroundFixture f;
    ReferenceServer server;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        if (f != null) {
            robot.interact(f.assembly::close);
            f.close();
        }
        if (server != null) {
            server.close();
        }
    }

    ReferenceServer startServer(int port) {
        return ReferenceServer.start(ServerConfig.defaults()
                .withDataDir(tmp.resolve("server"))
                .withPort(port)
                .withSeed(Seed.DEMO));
    }

    @Test
    void anUnreachableServerShowsOfflineWithTheChangesWaitingAndSyncsOnceItIsBack(FxRobot robot) {
        server = startServer(0);
        int port = server.port();
        String token = server.tokenFor("alice");
        server.close();
        server = null;

        var settings = new Backend.AppSettings(
                tmp.resolve("data"),
                Optional.of(ServerUrls.single("http://127.0.0.1:" + port)),
                Optional.of("alice"),
                Optional.of(token),
                Duration.ofSeconds(60),
                new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20)),
                Duration.ofHours(1),
                Duration.ofMinutes(1),
                RetryPolicy.NONE,
                time);
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage, settings, time, true, tmp.resolve("config"), Duration.ofMillis(300), Duration.ofMillis(600));
            f.assembly.show();
        });
        robot.clickOn("#sync-all");
        for (Scope s : Scope.values()) {
            waitUntil(
                    "offline shown for " + s,
                    () -> text(robot, "#status-" + s.wireName())
                            .equals("Offline · no changes waiting · next try 10:00"));
        }
        assertThat(text(robot, "#detail-course_sync")).startsWith("The sync server cannot be reached.");
        assertThat(robot.lookup("#retry-course_sync").queryButton().isVisible()).isFalse(); // not an error
        assertThat(f.vm().card(Scope.COURSE_SYNC).kindProperty().get()).isEqualTo(KeyStatus.Kind.OFFLINE);

        for (int i = 1; i <= 3; i++) {
            f.backend.runtime().edits().addEdit(COURSES, "course-" + (100 + i), "{\"title\":\"T" + i + "\"}", false);
        }
        waitUntil(
                "the changes counted",
                () -> text(robot, "#status-course_sync").equals("Offline — 3 changes waiting · next try 10:00"));
        assertThat(text(robot, "#status-message_sync")).isEqualTo("Offline · no changes waiting · next try 10:00");

        server = startServer(port); // back, same port, same data (tokens)
        for (Scope s : Scope.values()) {
            waitUntil(
                    "synced without a click: " + s,
                    () -> text(robot, "#status-" + s.wireName()).startsWith("Up to date"));
        }
        assertThat(f.backend.runtime().edits().pendingCount(COURSES)).isZero();
        assertThat(f.backend
                        .runtime()
                        .store()
                        .history()
                        .history(COURSES, 1)
                        .get(0)
                        .firstSource())
                .isEqualTo(TaskSource.RETRY);
        assertThat(server.stats().runOverlaps()).isZero();
        assertThat(f.assembly.offlineMonitor().nextTry()).isEmpty();
    }

    @Test
    void aFailureWithTheServerUpIsAnErrorNotOffline(FxRobot robot) {
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), Duration.ofHours(1), time),
                    time,
                    true,
                    tmp.resolve("config"),
                    Duration.ofMillis(300),
                    Duration.ofMillis(600));
            f.assembly.show();
        });
        f.backend
                .embeddedServer()
                .orElseThrow()
                .faults()
                .set(new org.leasesync.server.faults.FaultSettings(0, 0, 0, 0, 1));
        robot.clickOn("#sync-course_sync");
        waitUntil("failed", () -> text(robot, "#status-course_sync").startsWith("Last sync failed"));
        robot.sleep(1000); // the probe found the server
        assertThat(text(robot, "#status-course_sync"))
                .startsWith("Last sync failed: the sync server is busy (HTTP 429)");
        assertThat(f.assembly.offlineMonitor().nextTry()).isEmpty();
    }
}
