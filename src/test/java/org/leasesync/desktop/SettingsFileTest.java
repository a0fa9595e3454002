package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.testing.ManualTime;

class SettingsFileTest {

    @TempDir
    Path dir;

    final ManualTime time = new ManualTime(Instant.parse("2026-11-30T10:00:00Z"));

    @Test
    void withoutAFileTheDefaultsApplyAndNothingIsWritten() {
        SettingsFile f = new SettingsFile(dir, time);
        SettingsFile.Loaded l = f.load();
        assertThat(l.settings()).isEqualTo(UserSettings.DEFAULTS);
        assertThat(l.settings().notifications()).isTrue();
        assertThat(l.settings().startAtLogin()).isFalse();
        assertThat(l.settings().pause()).isEmpty();
        assertThat(l.problem()).isEmpty();
        assertThat(dir.resolve("settings.json")).doesNotExist();
    }

    @Test
    void writesReadableJsonOwnerOnlyAndReadsItBack() throws Exception {
        // A file the user's editor left readable to everyone: the new one is owner-only all the same.
        Files.writeString(dir.resolve("settings.json"), "{}\n");
        Files.setPosixFilePermissions(dir.resolve("settings.json"), PosixFilePermissions.fromString("rw-r--r--"));
        SettingsFile f = new SettingsFile(dir, time);
        f.load();
        f.update(s -> s.withNotifications(false)
                .withStartAtLogin(true)
                .withPause(Optional.of(new Pause(Optional.of(Instant.parse("2026-11-30T15:00:00Z"))))));
        Path file = dir.resolve("settings.json");
        assertThat(Files.readString(file)).isEqualTo("""
                {
                  "notifications" : false,
                  "startAtLogin" : true,
                  "pause" : {
                    "until" : "2026-11-30T15:00:00Z"
                  },
                  "noTrayNoticeShown" : false
                }
                """);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        SettingsFile again = new SettingsFile(dir, time);
        UserSettings read = again.load().settings();
        assertThat(read.notifications()).isFalse();
        assertThat(read.startAtLogin()).isTrue();
        assertThat(read.pause()).contains(new Pause(Optional.of(Instant.parse("2026-11-30T15:00:00Z"))));
    }

    @Test
    void pauseUntilResumedAndNoPauseRoundTrip() {
        SettingsFile f = new SettingsFile(dir, time);
        f.load();
        f.update(s -> s.withPause(Optional.of(Pause.untilResumed())).withNoTrayNoticeShown());
        assertThat(new SettingsFile(dir, time).load().settings().pause()).contains(Pause.untilResumed());
        assertThat(new SettingsFile(dir, time).load().settings().noTrayNoticeShown())
                .isTrue();
        f.update(s -> s.withPause(Optional.empty()));
        assertThat(new SettingsFile(dir, time).load().settings().pause()).isEmpty();
    }

    @Test
    void keysItDoesNotKnowAreKeptWhenItWrites() throws Exception {
        Files.writeString(dir.resolve("settings.json"), """
                { "notifications": true, "language": "zh-CN", "schedule": { "interval": "5m" } }
                """);
        SettingsFile f = new SettingsFile(dir, time);
        f.load();
        f.update(s -> s.withNotifications(false));
        String text = Files.readString(dir.resolve("settings.json"));
        assertThat(text)
                .contains("\"language\" : \"zh-CN\"")
                .contains("\"interval\" : \"5m\"")
                .contains("\"notifications\" : false");
    }

    @Test
    void aFileThatIsNotJsonIsMovedAsideWithTheLineNamedAndTheDefaultsApply() throws Exception {
        Files.writeString(dir.resolve("settings.json"), "{\n  \"notifications\": false,\n  oops\n}\n");
        SettingsFile.Loaded l = new SettingsFile(dir, time).load();
        assertThat(l.settings()).isEqualTo(UserSettings.DEFAULTS);
        SettingsFile.Problem p = l.problem().orElseThrow();
        assertThat(p.reason()).startsWith("not valid JSON at line 3");
        assertThat(p.keptAs()).isEqualTo(dir.resolve("settings.json.unreadable-20261130-100000"));
        assertThat(Files.readString(p.keptAs())).contains("oops"); // nothing the user wrote is lost
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p.keptAs())))
                .isEqualTo("rw-------");
        assertThat(dir.resolve("settings.json")).doesNotExist();
    }

    @Test
    void aValueOfTheWrongTypeIsNamedAndTheFileKept() throws Exception {
        Files.writeString(dir.resolve("settings.json"), "{ \"notifications\": \"yes\" }");
        SettingsFile.Loaded l = new SettingsFile(dir, time).load();
        assertThat(l.problem().orElseThrow().reason())
                .isEqualTo("\"notifications\" must be true or false, got \"yes\"");
        assertThat(l.problem().get().keptAs()).exists();

        Files.writeString(dir.resolve("settings.json"), "{ \"pause\": { \"until\": \"at three\" } }");
        time.elapse(java.time.Duration.ofSeconds(1));
        assertThat(new SettingsFile(dir, time).load().problem().orElseThrow().reason())
                .isEqualTo("\"pause.until\" must be a time like \"2026-11-30T15:00:00Z\", got \"at three\"");
    }

    @Test
    void aFailedWriteNamesTheFileAndKeepsTheSettingsInMemoryAsBefore() throws Exception {
        Path data = dir.resolve("data");
        Files.writeString(data, "a file where the data directory should be");
        SettingsFile f = new SettingsFile(data, time);
        f.load();
        assertThatThrownBy(() -> f.update(s -> s.withNotifications(false)))
                .isInstanceOf(LeasesyncException.class)
                .hasMessageContaining(data.resolve("settings.json").toString());
        assertThat(f.current()).isEqualTo(UserSettings.DEFAULTS);
    }

    @Test
    void theDialogsStartOptionsRoundTrip() throws Exception {
        SettingsFile f = new SettingsFile(dir, time);
        f.load();
        LaunchSettings launch = new LaunchSettings(
                Optional.of(java.time.Duration.ofSeconds(90)),
                Optional.of(java.time.Duration.ZERO),
                Language.CHINESE_SIMPLIFIED);
        f.update(s -> s.withLaunch(launch));
        String json = Files.readString(dir.resolve("settings.json"));
        assertThat(json)
                .contains(
                        "\"scheduleInterval\" : \"90s\"",
                        "\"foregroundMinInterval\" : \"0s\"",
                        "\"language\" : \"zh-CN\"")
                .doesNotContain("server", "token");
        assertThat(new SettingsFile(dir, time).load().settings().launch()).isEqualTo(launch);
        assertThat(SettingsFile.peek(dir).orElseThrow().launch()).isEqualTo(launch);

        f.update(s -> s.withLaunch(LaunchSettings.NONE));
        assertThat(Files.readString(dir.resolve("settings.json")))
                .doesNotContain("scheduleInterval", "language", "server");
    }

    @Test
    void anOlderVersionsServerEntryIsReadAndDroppedWithEveryOtherKeyKept() throws Exception {
        Files.writeString(dir.resolve("settings.json"), """
                { "notifications" : false, "scheduleInterval" : "90s", "fromANewerVersion" : { "x" : 1 },
                  "server" : { "urls" : [ "https://a.example/", "https://b.example/" ], "user" : "bob", "token" : "s3cret" },
                  "window" : { "x" : 1.0, "y" : 2.0, "width" : 800.0, "height" : 600.0, "maximized" : false } }
                """);
        SettingsFile.LegacyServer legacy = SettingsFile.legacyServer(dir).orElseThrow();
        assertThat(legacy.urls()).containsExactly("https://a.example/", "https://b.example/");
        assertThat(legacy.user()).contains("bob");
        assertThat(legacy.token()).contains("s3cret");
        assertThat(legacy.toString()).doesNotContain("s3cret");
        assertThat(new SettingsFile(dir, time).load().problem())
                .as("the window still reads the file")
                .isEmpty();

        SettingsFile.dropLegacyServer(dir);
        String json = Files.readString(dir.resolve("settings.json"));
        assertThat(json).doesNotContain("server", "s3cret").contains("\"fromANewerVersion\"", "\"window\"");
        SettingsFile.Loaded after = new SettingsFile(dir, time).load();
        assertThat(after.settings().notifications()).isFalse();
        assertThat(after.settings().launch().scheduleInterval()).contains(java.time.Duration.ofSeconds(90));
        assertThat(SettingsFile.legacyServer(dir)).isEmpty();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("settings.json"))))
                .isEqualTo("rw-------");
    }

    @Test
    void aBadStartOptionIsNamedTheFileKeptAndPeekChangesNothing() throws Exception {
        Files.writeString(dir.resolve("settings.json"), "{ \"scheduleInterval\": \"0s\" }");
        assertThat(SettingsFile.peek(dir)).isEmpty();
        assertThat(dir.resolve("settings.json")).exists();
        assertThat(new SettingsFile(dir, time).load().problem().orElseThrow().reason())
                .isEqualTo("schedule interval must be at least 1s, got PT0S");

        Files.writeString(dir.resolve("settings.json"), "{ \"language\": \"fr\" }");
        time.elapse(java.time.Duration.ofSeconds(1));
        assertThat(new SettingsFile(dir, time).load().problem().orElseThrow().reason())
                .isEqualTo("\"language\": unknown language 'fr'; expected system, en or zh-CN");
    }
}
