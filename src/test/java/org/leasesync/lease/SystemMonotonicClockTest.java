package org.leasesync.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The system monotonic clock's id: one per boot (and time namespace), none when nanoTime is not the kernel's clock. */
class SystemMonotonicClockTest {

    private static final String BOOT = "a7546d95-95f7-40de-8d8c-3464fa39528b\n";
    private static final long UPTIME = 18_364_400_000_000L;

    @Test
    void theIdIsTheBootIdWhenNanoTimeIsWithinTheTimeSinceBoot() {
        assertThat(SystemMonotonicClock.idFrom(BOOT, "monotonic 0 0\nboottime 0 0\n", UPTIME - 900_000_000L, UPTIME))
                .contains("linux-monotonic:a7546d95-95f7-40de-8d8c-3464fa39528b");
        assertThat(SystemMonotonicClock.idFrom(BOOT, "", UPTIME - 5_000_000_000_000L, UPTIME))
                .as("less: the machine was suspended for a while")
                .contains("linux-monotonic:a7546d95-95f7-40de-8d8c-3464fa39528b");
    }

    @Test
    void aTimeNamespaceWithAMonotonicOffsetIsAnotherClock() {
        assertThat(SystemMonotonicClock.idFrom(
                        BOOT, "monotonic        3600         0\nboottime 0 0\n", UPTIME, UPTIME + 3_600_000_000_000L))
                .contains("linux-monotonic:a7546d95-95f7-40de-8d8c-3464fa39528b+3600.0");
    }

    @Test
    void aNanoTimeBeyondTheTimeSinceBootIsNotTheKernelsClock() {
        long fakedWallNanos = 1_796_074_951_790_399_337L; // System.nanoTime() under faketime -f +2h
        assertThat(SystemMonotonicClock.idFrom(BOOT, "", fakedWallNanos, UPTIME))
                .isEmpty();
        assertThat(SystemMonotonicClock.idFrom(BOOT, "", UPTIME + 2_500_000_000L, UPTIME))
                .isEmpty();
        assertThat(SystemMonotonicClock.idFrom(BOOT, "", -1, UPTIME)).isEmpty();
        assertThat(SystemMonotonicClock.idFrom(" \n", "", UPTIME, UPTIME)).isEmpty();
    }

    @Test
    void uptimeIsParsedToNanoseconds() {
        assertThat(SystemMonotonicClock.uptimeNanos("18364.40 17848.06\n")).isEqualTo(UPTIME);
        assertThat(SystemMonotonicClock.uptimeNanos("7 3")).isEqualTo(7_000_000_000L);
    }

    @Test
    void onThisLinuxMachineTheSystemTimeSourceNamesThisBoot() throws Exception {
        Optional<String> id = TimeSource.system().monotonicClockId();
        String boot =
                Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
        assertThat(id).hasValueSatisfying(v -> assertThat(v).startsWith("linux-monotonic:" + boot));
        assertThat(TimeSource.system().monotonicClockId())
                .as("the same for every time source of the process")
                .isEqualTo(id);
    }
}
