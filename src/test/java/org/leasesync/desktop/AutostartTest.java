package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.LeasesyncException;

class AutostartTest {

    @TempDir
    Path dir;

    @Test
    void theConfigDirectoryIsXdgConfigHomeWhenAbsoluteElseDotConfig() {
        assertThat(Autostart.configHome(Map.of("XDG_CONFIG_HOME", "/tmp/cfg"), "/home/ann"))
                .isEqualTo(Path.of("/tmp/cfg"));
        assertThat(Autostart.configHome(Map.of("XDG_CONFIG_HOME", "relative/cfg"), "/home/ann"))
                .isEqualTo(Path.of("/home/ann/.config")); // the specification ignores a relative value
        assertThat(Autostart.configHome(Map.of("XDG_CONFIG_HOME", " "), "/home/ann"))
                .isEqualTo(Path.of("/home/ann/.config"));
        assertThat(Autostart.configHome(Map.of(), "/home/ann")).isEqualTo(Path.of("/home/ann/.config"));
    }

    @Test
    void enableWritesTheDesktopEntryAndDisableRemovesIt() throws Exception {
        Autostart a =
                new Autostart(dir, dir.resolve("data-home"), Optional.of(List.of("/opt/leasesync/bin/leasesync")));
        assertThat(a.available()).isTrue();
        assertThat(a.enabled()).isFalse();
        a.enable();
        Path entry = dir.resolve("autostart/leasesync.desktop");
        assertThat(a.entry()).isEqualTo(entry);
        assertThat(a.enabled()).isTrue();
        assertThat(Files.readString(entry)).isEqualTo("""
                [Desktop Entry]
                Type=Application
                Name=leasesync
                Name[zh_CN]=leasesync
                Comment=Keeps your courses, messages and settings in sync in the background
                Comment[zh_CN]=在后台同步你的课程、消息和设置
                Icon=leasesync
                Exec=env LEASESYNC_START_HIDDEN=1 /opt/leasesync/bin/leasesync
                Terminal=false
                X-GNOME-Autostart-enabled=true
                """);
        assertThat(perms(entry))
                .as("owner-only like every file leasesync writes")
                .isEqualTo("rw-------");
        // no installed icon beside that launcher: the app's own icon, put into the user's icon theme
        Path themed = dir.resolve("data-home").resolve("icons/hicolor/256x256/apps/leasesync.png");
        try (var in = Autostart.class.getResourceAsStream("/org/leasesync/desktop/leasesync.png")) {
            assertThat(Files.readAllBytes(themed)).isEqualTo(in.readAllBytes());
        }
        assertThat(perms(entry.getParent())).as("made here: 0700, as XDG asks").isEqualTo("rwx------");
        a.enable(); // again: replaced, still one entry
        assertThat(Files.list(entry.getParent())).containsExactly(entry);
        a.disable();
        assertThat(entry).doesNotExist();
        assertThat(a.enabled()).isFalse();
        a.disable(); // nothing to remove: no error
    }

    @Test
    void anInstalledAppImageNamesItsOwnIconFile() throws Exception {
        Path app = dir.resolve("opt/leasesync");
        Files.createDirectories(app.resolve("bin"));
        Files.createDirectories(app.resolve("lib"));
        Files.write(app.resolve("lib/leasesync.png"), new byte[] {1, 2, 3});
        Autostart a = new Autostart(
                dir,
                dir.resolve("data-home"),
                Optional.of(List.of(app.resolve("bin/leasesync").toString())));
        a.enable();
        assertThat(Files.readString(a.entry())).contains("\nIcon=" + app.resolve("lib/leasesync.png") + "\n");
        assertThat(dir.resolve("data-home").resolve("icons")).doesNotExist();
    }

    @Test
    void anExistingAutostartDirectoryIsTheUsersAndKeepsItsPermissions() throws Exception {
        Path autostart = Files.createDirectories(dir.resolve("autostart"));
        Files.setPosixFilePermissions(autostart, PosixFilePermissions.fromString("rwxr-xr-x"));
        new Autostart(dir, dir.resolve("data-home"), Optional.of(List.of("/opt/leasesync/bin/leasesync"))).enable();
        assertThat(perms(autostart)).isEqualTo("rwxr-xr-x");
        assertThat(perms(autostart.resolve(Autostart.FILE))).isEqualTo("rw-------");
    }

    @Test
    void execArgumentsAreQuotedAndEscapedPerTheDesktopEntrySpecification() {
        assertThat(Autostart.exec(List.of("/usr/bin/java", "-jar", "/home/ann/My Apps/leasesync.jar")))
                .isEqualTo("/usr/bin/java -jar \"/home/ann/My Apps/leasesync.jar\"");
        // inside quotes: \" \` \$ \\ ; then the string rule doubles every backslash; % becomes %%
        assertThat(Autostart.exec(List.of("a\"b", "c$d", "e`f", "g\\h", "100%")))
                .isEqualTo("\"a\\\\\"b\" \"c\\\\$d\" \"e\\\\`f\" \"g\\\\\\\\h\" 100%%");
        assertThat(Autostart.exec(List.of("--data-dir", "/tmp/x(1)"))).isEqualTo("--data-dir \"/tmp/x(1)\"");
        assertThat(Autostart.exec(List.of(""))).isEqualTo("\"\"");
    }

    @Test
    void withoutALauncherCommandNothingCanBeWritten() {
        Autostart a = new Autostart(dir, dir.resolve("data-home"), Optional.empty());
        assertThat(a.available()).isFalse();
        assertThatThrownBy(a::enable)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run the installed app or leasesync.jar");
        assertThat(dir.resolve("autostart")).doesNotExist();
    }

    @Test
    void aCommandWithALineBreakIsRefused() {
        assertThatThrownBy(() -> new Autostart(dir, dir.resolve("data-home"), Optional.of(List.of("/bin/x", "a\nb"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no line breaks");
    }

    @Test
    void aWriteThatFailsNamesTheEntry() throws Exception {
        Files.writeString(dir.resolve("autostart"), "a file where the directory should be");
        Autostart a =
                new Autostart(dir, dir.resolve("data-home"), Optional.of(List.of("/opt/leasesync/bin/leasesync")));
        assertThatThrownBy(a::enable)
                .isInstanceOf(LeasesyncException.class)
                .hasMessageContaining(dir.resolve("autostart/leasesync.desktop").toString());
    }

    @Test
    void theLauncherCommandOfTestClassesIsUnknown() {
        // the tests run from target/classes, not from a jar or the jpackage launcher
        assertThat(Autostart.launcherCommand(List.of())).isEmpty();
    }

    @Test
    void theInstalledAppsLoginStartsItsTrayLauncherWhenItHasOne() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("opt/leasesync/bin"));
        Path main = Files.createFile(bin.resolve("leasesync"));
        String before = System.getProperty("jpackage.app-path");
        System.setProperty("jpackage.app-path", main.toString());
        try {
            assertThat(Autostart.launcherCommand(List.of("--data-dir", "d")))
                    .contains(List.of(main.toString(), "--data-dir", "d"));
            Path tray = Files.createFile(bin.resolve("leasesync-tray"));
            assertThat(tray.toFile().setExecutable(true)).isTrue();
            assertThat(Autostart.launcherCommand(List.of("--data-dir", "d")))
                    .contains(List.of(tray.toString(), "--data-dir", "d"));
        } finally {
            if (before == null) {
                System.clearProperty("jpackage.app-path");
            } else {
                System.setProperty("jpackage.app-path", before);
            }
        }
    }

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
