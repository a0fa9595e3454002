package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The window's options that were given (so they win over settings.json for that launch) are told
 * apart from their defaults: {@link GuiOptions#given()}.
 */
class WindowOptionsGivenTest {

    @TempDir
    Path tmp;

    @AfterEach
    void resetLogging() {
        LoggingSetup.removeFileLogForTests();
    }

    GuiOptions open(String... args) {
        AtomicReference<GuiOptions> seen = new AtomicReference<>();
        CommandLine cl = LeasesyncCommand.commandLine(new LeasesyncCommand(o -> {
            seen.set(o);
            return 0;
        }));
        List<String> all = new java.util.ArrayList<>(
                List.of("--data-dir", tmp.resolve("data").toString()));
        all.addAll(List.of(args));
        assertThat(cl.execute(all.toArray(String[]::new))).isZero();
        return seen.get();
    }

    /** What the environment of this test JVM gives (normally nothing). */
    static Set<String> fromEnvironment() {
        Set<String> s = new TreeSet<>();
        if (notBlank(System.getenv("LEASESYNC_SCHEDULE_INTERVAL"))) {
            s.add("--schedule-interval");
        }
        if (notBlank(System.getenv("LEASESYNC_FOREGROUND_MIN_INTERVAL"))) {
            s.add("--foreground-min-interval");
        }
        return s;
    }

    static boolean notBlank(String v) {
        return v != null && !v.isBlank();
    }

    @Test
    void defaultsAreNotGivenAndEachOptionWrittenIs() {
        assertThat(new TreeSet<>(open().given())).isEqualTo(fromEnvironment());

        GuiOptions o = open("--schedule-interval", "2m", "--foreground-min-interval", "0s");
        assertThat(o.given())
                .contains("--schedule-interval", "--foreground-min-interval")
                .doesNotContain("--server");
        assertThat(o.scheduleInterval()).hasMinutes(2);
        assertThat(o.foregroundMinInterval()).isZero();

        GuiOptions s = open("--server", "http://127.0.0.1:9", "--user", "bob", "--token", "t");
        assertThat(s.given()).contains("--server");
    }
}
