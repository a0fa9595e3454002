package org.leasesync.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Owner ids carry a start that no wall-clock step changes; older owner ids still parse. */
class ProcessStartTest {

    @Test
    void startTicksAreFieldTwentyTwoCountedFromTheLastParenthesis() {
        // the command name may contain spaces and ')' — counting fields from the start would misread it
        String stat = "4242 (evil) 1 2 3 (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 3 0 1805146 123456 789 "
                + "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        assertThat(ProcFs.parseStartTicks(stat)).isEqualTo(1805146L);
        assertThat(ProcFs.parseStartTicks("7 (a b) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 1 1"))
                .isEqualTo(99L);
        assertThatThrownBy(() -> ProcFs.parseStartTicks("7 no parenthesis")).hasMessageContaining("')'");
        assertThatThrownBy(() -> ProcFs.parseStartTicks("7 (x) R 1 2")).hasMessageContaining("fewer than 22");
    }

    @Test
    void thisProcessStartIsReadInTicksWithTheBootIdAndMatchesProc() throws Exception {
        ProcessStart start = ProcessStart.current();
        assertThat(start).isInstanceOf(ProcessStart.SinceBoot.class);
        ProcessStart.SinceBoot s = (ProcessStart.SinceBoot) start;
        String stat = Files.readString(Path.of("/proc/self/stat")); // this JVM's own entry
        assertThat(s.ticks()).isEqualTo(ProcFs.parseStartTicks(stat));
        assertThat(s.bootId())
                .isEqualTo(Files.readString(Path.of("/proc/sys/kernel/random/boot_id"))
                        .trim()
                        .replace("-", ""));
        assertThat(ProcFs.isAbsent(Integer.MAX_VALUE - 7L)).isTrue();
        assertThat(ProcFs.isAbsent(ProcessHandle.current().pid())).isFalse();
    }

    @Test
    void ownerIdsOfTheNewAndTheEarlierFormRoundTripExactly() {
        OwnerId now = OwnerId.forCurrentProcess();
        assertThat(now.start()).isInstanceOf(ProcessStart.SinceBoot.class);
        assertThat(now.asString()).matches("[^/]+:pidns\\d+/\\d+/\\d+@[0-9a-f]{32}@\\d+/[0-9a-f]{12}");
        assertThat(OwnerId.parse(now.asString())).isEqualTo(now);
        // a row written by an earlier version: start in epoch millis; parsed as Legacy and written back unchanged,
        // so a takeover's conditional UPDATE (which matches the owner text) still matches it
        String old = "vm:pidns4026531836/41877/1764513439460/a1b2c3d4e5f6";
        OwnerId legacy = OwnerId.parse(old);
        assertThat(legacy.start()).isEqualTo(new ProcessStart.Legacy(1_764_513_439_460L));
        assertThat(legacy.asString()).isEqualTo(old);
        assertThat(OwnerId.parse("h/1/0/a").start()).isEqualTo(ProcessStart.UNKNOWN);
    }

    @Test
    void badStartsAreRefusedNamingTheText() {
        assertThatThrownBy(() -> OwnerId.parse("h/1/12@zz@3/a"))
                .hasMessageContaining("boot id")
                .hasMessageContaining("zz");
        assertThatThrownBy(() -> OwnerId.parse("h/1/x@y/a")).hasMessageContaining("'x@y'");
        assertThatThrownBy(() -> OwnerId.parse("h/1/-5/a")).hasMessageContaining("-5");
        assertThatThrownBy(() -> new ProcessStart.SinceBoot(-1, "0".repeat(32), 0))
                .hasMessageContaining("-1");
    }
}
