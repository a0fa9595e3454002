package org.leasesync.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link JobSettings} validates once and names what is wrong; {@link TombstoneHorizons.Horizon#accepts}. */
class JobSettingsTest {

    @Test
    void defaultsScheduleEveryJobAtItsDocumentedInterval() {
        JobSettings d = JobSettings.defaults();
        assertThat(d.interval(StandardJobs.EXPIRE_IDEMPOTENCY_KEYS)).contains(Duration.ofMinutes(10));
        assertThat(d.interval(StandardJobs.PRUNE_AUDIT)).contains(Duration.ofHours(1));
        assertThat(d.interval(StandardJobs.PURGE_TOMBSTONES)).contains(Duration.ofHours(1));
        assertThat(d.interval(StandardJobs.RELEASE_STALE_CLAIMS)).contains(Duration.ofMinutes(1));
        assertThat(d.leaseTtl()).isEqualTo(Duration.ofSeconds(15));
        assertThat(d.auditRetention()).isEqualTo(Duration.ofDays(7));
        assertThat(d.tombstoneRetention()).isEqualTo(Duration.ofDays(30));
        assertThat(d.batchSize()).isEqualTo(500);
        assertThat(d.intervals()).containsOnlyKeys(StandardJobs.NAMES);
    }

    @Test
    void offAndUnscheduledMeanNoInterval() {
        JobSettings s = JobSettings.defaults().withInterval(StandardJobs.PRUNE_AUDIT, JobSettings.OFF);
        assertThat(s.interval(StandardJobs.PRUNE_AUDIT)).isEmpty();
        assertThat(s.interval(StandardJobs.PURGE_TOMBSTONES)).isPresent();
        assertThat(s.withScheduled(false).interval(StandardJobs.PURGE_TOMBSTONES))
                .isEmpty();
        assertThat(s.withScheduled(false).intervals().get(StandardJobs.PURGE_TOMBSTONES))
                .isEqualTo(Duration.ofHours(1));
    }

    @Test
    void badValuesAreRefusedNamingThem() {
        JobSettings d = JobSettings.defaults();
        assertThatThrownBy(() -> d.withInterval("vacuum", Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown job 'vacuum'")
                .hasMessageContaining("release-stale-claims");
        assertThatThrownBy(() -> d.withInterval(StandardJobs.PRUNE_AUDIT, Duration.ofMillis(99)))
                .hasMessageContaining("interval of job prune-audit must be between 100ms and 30d")
                .hasMessageContaining("PT0.099S");
        assertThatThrownBy(() -> d.withInterval(StandardJobs.PRUNE_AUDIT, Duration.ofDays(31)))
                .hasMessageContaining("PT744H");
        assertThatThrownBy(() -> d.withLeaseTtl(Duration.ofMillis(10))).hasMessageContaining("job lease TTL");
        assertThatThrownBy(() -> d.withAuditRetention(Duration.ZERO))
                .hasMessageContaining("audit retention must be positive");
        assertThatThrownBy(() -> d.withTombstoneRetention(Duration.ofSeconds(-1)))
                .hasMessageContaining("tombstone retention must be positive");
        assertThatThrownBy(() -> d.withBatchSize(0)).hasMessageContaining("batch size must be 1..10000 but was 0");
        assertThatThrownBy(() -> d.withPauseAfterFirstBatch(Set.of("x"))).hasMessageContaining("unknown job 'x'");
        assertThatThrownBy(() -> new JobSettings(
                        true,
                        Map.of("vacuum", Duration.ofMinutes(1)),
                        Duration.ofSeconds(15),
                        Duration.ofDays(1),
                        Duration.ofDays(1),
                        10,
                        Set.of()))
                .hasMessageContaining("unknown job 'vacuum'");
    }

    @Test
    void aHorizonAcceptsCursorsThatSawEveryPurgedTombstoneOrWereIssuedSinceTheLastPurge() {
        TombstoneHorizons.Horizon none = TombstoneHorizons.Horizon.NONE;
        assertThat(none.accepts(0, 0)).isTrue();
        assertThat(none.accepts(99, 0)).isTrue();
        assertThat(none.accepts(5, 1)).as("a generation never issued").isFalse();
        TombstoneHorizons.Horizon h = new TombstoneHorizons.Horizon(10, 4, 2);
        assertThat(h.accepts(9, 0))
                .as("issued before the purges, below the horizon")
                .isFalse();
        assertThat(h.accepts(9, 1)).as("issued between two purges").isFalse();
        assertThat(h.accepts(10, 0)).as("saw every purged tombstone").isTrue();
        assertThat(h.accepts(3, 2)).as("issued since the last purge").isTrue();
        assertThat(h.accepts(30, 3)).isFalse();
        assertThatThrownBy(() -> new TombstoneHorizons.Horizon(-1, 0, 0)).hasMessageContaining("seq -1");
    }
}
