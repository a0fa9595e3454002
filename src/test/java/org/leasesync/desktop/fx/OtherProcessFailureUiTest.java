package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ManualTime;
import org.leasesync.testing.ProcessTest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * A {@code leasesync sync} from the command line against another server, on the window's
 * data directory, fails; the window's card shows that failure and says it came from another process
 * (which program, its pid) and which server — not this window's. A real CLI process on the shared
 * H2 file; the real window on the embedded server.
 */
@ExtendWith(ApplicationExtension.class)
@ProcessTest
@FxTest
class OtherProcessFailureUiTest {

    static final TaskKey ALICE_COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Backend backend;
    AppAssembly assembly;

    @RegisterExtension
    final AppWindow window = new AppWindow();

    @Start
    void start(Stage stage) {
        var settings = UiTestSupport.settings(tmp.resolve("data"), Duration.ofHours(1), time);
        assembly = window.open(stage, settings);
        backend = window.backend();
    }

    @Test
    void aFailedSyncOfTheCommandLineAgainstAnotherServerSaysWhereItCameFrom(FxRobot robot) throws Exception {
        for (Scope s : Scope.values()) {
            waitUntil("card " + s + " settled", () -> {
                String t = text(robot, "#status-" + s.wireName());
                return !t.startsWith("Syncing") && !t.startsWith("Loading");
            });
        }
        robot.clickOn("#sync-all"); // the window's own runs, against its embedded server
        for (Scope s : Scope.values()) {
            waitUntil(
                    "card " + s + " up to date",
                    () -> text(robot, "#status-" + s.wireName()).startsWith("Up to date"));
        }
        waitUntil(
                "no local runs",
                () -> backend.runtime().coordinator().localRuns().isEmpty());
        String otherServer = "http://127.0.0.1:1";
        Path log = tmp.resolve("cli-sync.log");
        Process cli = JavaProcess.start(
                Launcher.class,
                log,
                "sync",
                "--data-dir",
                tmp.resolve("data").toString(),
                "--user",
                "alice",
                "--scope",
                "course_sync",
                "--server",
                otherServer,
                "--token",
                "t",
                "--connect-timeout",
                "500ms");
        assertThat(cli.waitFor(90, TimeUnit.SECONDS))
                .as("the CLI sync finished")
                .isTrue();
        assertThat(cli.exitValue()).as(Files.readString(log)).isEqualTo(1);
        assertThat(Files.readString(log)).contains("alice|course_sync sync failed: cannot reach the sync server");

        RunRecord cliRun =
                backend.runtime().store().history().lastRun(ALICE_COURSES).orElseThrow();
        assertThat(cliRun.status()).contains(RunStatus.FAILED);
        assertThat(cliRun.origin()).contains(new RunOrigin("leasesync sync", "http://127.0.0.1:1/"));
        assertThat(cliRun.owner()).contains("/" + cli.pid() + "/");

        waitUntil(
                "the card shows the CLI's failure",
                () -> text(robot, "#status-course_sync").startsWith("Last sync failed"));
        assertThat(text(robot, "#status-course_sync"))
                .isEqualTo("Last sync failed: " + cliRun.error().orElseThrow() + " — Retry");
        assertThat(text(robot, "#detail-course_sync"))
                .startsWith("From another process — leasesync sync (pid " + cli.pid()
                        + ") against http://127.0.0.1:1/, not this window's server · last successful sync ");
        // the window's own runs record where they came from too, and are not marked as another process's
        RunRecord own =
                backend.runtime().store().history().history(ALICE_COURSES, 10).get(1);
        assertThat(own.origin())
                .contains(new RunOrigin(
                        Backend.PROGRAM, backend.runtime().config().servers().toString()));
        assertThat(text(robot, "#detail-message_sync")).doesNotContain("another process");
    }
}
