package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Without a display (or GTK 3) the window says so in one plain line and exits 1 — no
 * stack trace. The rules as functions, and the real launcher as a process.
 */
@ProcessTest
class DisplayCheckTest {

    @TempDir
    Path tmp;

    static Properties linux(String glassPlatform) {
        Properties p = new Properties();
        p.setProperty("os.name", "Linux");
        if (glassPlatform != null) {
            p.setProperty("glass.platform", glassPlatform);
        }
        return p;
    }

    @Test
    void noDisplayAtAllIsRefusedBeforeJavaFxStarts() {
        assertThatThrownBy(() -> DisplayCheck.check(Map.of(), linux(null)))
                .isInstanceOf(LeasesyncException.class)
                .hasMessage("there is no display to open the window on: DISPLAY is not set. Run it on a desktop, set "
                        + "DISPLAY to a running X server, or start one with Xvfb (xvfb-run -a leasesync); the commands "
                        + "(leasesync --help) need no display");
        assertThatCode(() -> DisplayCheck.check(Map.of("DISPLAY", ":0"), linux(null)))
                .doesNotThrowAnyException();
        assertThatCode(() -> DisplayCheck.check(Map.of("WAYLAND_DISPLAY", "wayland-0"), linux(null)))
                .doesNotThrowAnyException();
        assertThatCode(() -> DisplayCheck.check(Map.of(), linux("Monocle"))).doesNotThrowAnyException();
    }

    @Test
    void javaFxFailuresBecomeOnePlainLine() {
        RuntimeException noServer = new UnsupportedOperationException("Unable to open DISPLAY");
        assertThat(DisplayCheck.explain(noServer, Map.of("DISPLAY", ":77")).getMessage())
                .isEqualTo("cannot open the display ':77' (DISPLAY): no X server answers there. Set DISPLAY to a "
                        + "running one, or start one with Xvfb (xvfb-run -a leasesync)");
        RuntimeException noGtk = new RuntimeException(
                "launch failed", new UnsupportedOperationException("Unable to load glass GTK library."));
        assertThat(DisplayCheck.explain(noGtk, Map.of()).getMessage())
                .isEqualTo("the window needs GTK 3, which is not "
                        + "installed: apt-get install libgtk-3-0 (as root; otherwise with sudo)");
        LeasesyncException other = DisplayCheck.explain(new IllegalStateException("boom"), Map.of());
        assertThat(other.getMessage()).isEqualTo("the window could not start: java.lang.IllegalStateException: boom");
        assertThat(other.getCause()).isInstanceOf(IllegalStateException.class);
    }

    record Run(int code, String out) {}

    /** The line every failed command ends with: where its details were logged. */
    private String logLine() {
        return "leasesync: details are in the log files in "
                + tmp.resolve("data").resolve("logs") + "\n";
    }

    /** The real launcher, without the test JVM's display settings, with {@code display} as DISPLAY (or none). */
    Run launcher(String display) throws IOException, InterruptedException {
        List<String> cmd = JavaProcess.jvm();
        cmd.addAll(List.of(
                "-cp",
                JavaProcess.classPath(),
                Launcher.class.getName(),
                "--data-dir",
                tmp.resolve("data").toString()));
        Path out = tmp.resolve("launcher.out");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment()
                .keySet()
                .removeIf(k -> k.startsWith("LEASESYNC_") || k.equals("DISPLAY") || k.equals("WAYLAND_DISPLAY"));
        if (display != null) {
            pb.environment().put("DISPLAY", display);
        }
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(out));
    }

    @Test
    void theLauncherWithoutADisplaySaysWhatToDoAndWhereTheLogIsAndExitsOne() throws Exception {
        Run r = launcher(null);
        assertThat(r.code()).as(r.out()).isEqualTo(1);
        assertThat(r.out())
                .isEqualTo("leasesync: there is no display to open the window on: DISPLAY is not set. Run it "
                        + "on a desktop, set DISPLAY to a running X server, or start one with Xvfb (xvfb-run -a leasesync); the "
                        + "commands (leasesync --help) need no display\n" + logLine());
    }

    @Test
    void theLauncherOnADisplayNobodyAnswersSaysWhatToDoAndWhereTheLogIsAndExitsOne() throws Exception {
        int n = 190;
        while (Files.exists(Path.of("/tmp/.X11-unix/X" + n)) || Files.exists(Path.of("/tmp/.X" + n + "-lock"))) {
            n++;
        }
        Run r = launcher(":" + n);
        assertThat(r.code()).as(r.out()).isEqualTo(1);
        assertThat(r.out())
                .isEqualTo("leasesync: cannot open the display ':" + n + "' (DISPLAY): no X server answers "
                        + "there. Set DISPLAY to a running one, or start one with Xvfb (xvfb-run -a leasesync)\n"
                        + logLine());
    }
}
