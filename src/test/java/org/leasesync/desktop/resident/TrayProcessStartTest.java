package org.leasesync.desktop.resident;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The command line the window starts the tray process with: this process's own, from {@code /proc}. */
@Timeout(30)
class TrayProcessStartTest {

    @TempDir
    Path tmp;

    @Test
    void theAppImagesTrayLauncherHasTheSameOptions() throws Exception {
        String config = Files.readString(Path.of("jlink/config.sh"));
        List<String> launcher = new java.util.ArrayList<>();
        for (String name : List.of("JAVA_OPTIONS", "TRAY_JAVA_OPTIONS")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?ms)^" + name + "=\\((.*?)\\)$")
                    .matcher(config);
            assertThat(m.find()).as(name + " in jlink/config.sh").isTrue();
            launcher.addAll(List.of(m.group(1).trim().split("\\s+")));
        }
        assertThat(launcher).containsAll(TrayProcessStart.TRAY_JVM);
    }

    @Test
    void theExecutableIsAbsoluteAndTheArgumentsAreReadAsUtf8() throws Exception {
        Path proc = Files.createDirectories(tmp.resolve("proc"));
        Files.createSymbolicLink(proc.resolve("exe"), Path.of("/opt/leasesync/bin/leasesync"));
        Files.write(
                proc.resolve("cmdline"),
                "leasesync\0--data-dir\0/home/李/数据\0--schedule-interval\0\0".getBytes(StandardCharsets.UTF_8));
        assertThat(TrayProcessStart.command(proc))
                .contains(
                        List.of("/opt/leasesync/bin/leasesync", "--data-dir", "/home/李/数据", "--schedule-interval", ""));
    }

    @Test
    void theAppImagesTrayLauncherIsUsedWhenItIsThere() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("app/bin"));
        Path main = Files.createFile(bin.resolve("leasesync"));
        assertThat(org.leasesync.desktop.Autostart.trayLauncher(main)).isEqualTo(main);
        Path tray = Files.createFile(bin.resolve("leasesync-tray"));
        assertThat(org.leasesync.desktop.Autostart.trayLauncher(main))
                .as("not executable")
                .isEqualTo(main);
        assertThat(tray.toFile().setExecutable(true)).isTrue();
        assertThat(org.leasesync.desktop.Autostart.trayLauncher(main)).isEqualTo(tray);
        Path proc = Files.createDirectories(tmp.resolve("proc"));
        Files.createSymbolicLink(proc.resolve("exe"), main);
        Files.write(proc.resolve("cmdline"), "leasesync\0--data-dir\0d\0".getBytes(StandardCharsets.UTF_8));
        assertThat(TrayProcessStart.command(proc)).contains(List.of(tray.toString(), "--data-dir", "d"));
    }

    @Test
    void aTrayProcessStartedWithJavaGetsTheSerialCollectorUnlessOneWasChosen() throws Exception {
        Path proc = Files.createDirectories(tmp.resolve("proc"));
        Files.createSymbolicLink(proc.resolve("exe"), Path.of("/usr/lib/jvm/x/bin/java"));
        Files.write(proc.resolve("cmdline"), "java\0-jar\0l.jar\0".getBytes(StandardCharsets.UTF_8));
        List<String> plain = TrayProcessStart.command(proc).orElseThrow();
        assertThat(plain).startsWith("/usr/lib/jvm/x/bin/java").endsWith("-jar", "l.jar");
        assertThat(plain)
                .contains(TrayProcessStart.SERIAL_GC)
                .containsAll(TrayProcessStart.TRAY_JVM)
                .containsAll(TrayProcessStart.SERIAL_HEAP);
        Files.write(proc.resolve("cmdline"), "java\0-XX:+UseG1GC\0-jar\0l.jar\0".getBytes(StandardCharsets.UTF_8));
        assertThat(TrayProcessStart.command(proc).orElseThrow())
                .as("the collector the user chose stays the only one")
                .doesNotContain(TrayProcessStart.SERIAL_GC)
                .doesNotContainAnyElementsOf(TrayProcessStart.SERIAL_HEAP)
                .endsWith("-XX:+UseG1GC", "-jar", "l.jar");
    }

    @Test
    void withoutProcThereIsNoCommand() throws Exception {
        assertThat(TrayProcessStart.command(tmp.resolve("missing"))).isEmpty();
        Path proc = Files.createDirectories(tmp.resolve("empty"));
        Files.createSymbolicLink(proc.resolve("exe"), Path.of("/usr/bin/java"));
        Files.write(proc.resolve("cmdline"), new byte[0]);
        assertThat(TrayProcessStart.command(proc)).isEmpty();
    }

    @Test
    void theEnvironmentMarksTheTrayProcessAndDropsTheLaunchersOwnMarks() {
        var env = TrayProcessStart.environment(
                java.util.Map.of(
                        "HOME",
                        "/home/u",
                        "_JPACKAGE_LAUNCHER",
                        "12345",
                        org.leasesync.desktop.Autostart.START_HIDDEN_ENV,
                        "1",
                        Resident.ACCOUNT_ENV,
                        "bob"),
                "alice",
                true);
        assertThat(env)
                .containsEntry("HOME", "/home/u")
                .containsEntry(Resident.ENV, "1")
                .containsEntry(Resident.ACCOUNT_ENV, "alice")
                .doesNotContainKeys("_JPACKAGE_LAUNCHER", org.leasesync.desktop.Autostart.START_HIDDEN_ENV);
        assertThat(TrayProcessStart.environment(java.util.Map.of(Resident.ACCOUNT_ENV, "bob"), null, true))
                .doesNotContainKey(Resident.ACCOUNT_ENV);
        // a launch asked for the window during the handover: the window, not the tray process
        assertThat(TrayProcessStart.environment(java.util.Map.of(Resident.ENV, "1"), "alice", false))
                .doesNotContainKey(Resident.ENV);
    }

    @Test
    void thisJvmsOwnCommandStartsAProcessThatSeesTheTrayEnvironment() throws Exception {
        var own = TrayProcessStart.command(Path.of("/proc/self")).orElseThrow();
        assertThat(Path.of(own.get(0))).isAbsolute().isEqualTo(Path.of(System.getProperty("java.home"), "bin", "java"));
        assertThat(own.subList(1, 1 + TrayProcessStart.TRAY_JVM.size()))
                .as("C1 only and the slow JVM timers, before the inherited options")
                .isEqualTo(TrayProcessStart.TRAY_JVM);
        // the same start, with a command that prints what the tray process would be told
        Process p = TrayProcessStart.start(
                List.of(
                        "/bin/sh",
                        "-c",
                        "echo \"$" + Resident.ENV + " $" + Resident.ACCOUNT_ENV + "\" > " + tmp.resolve("env")),
                "李雷",
                true);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(tmp.resolve("env"), StandardCharsets.UTF_8).strip())
                .isEqualTo("1 李雷");
    }
}
