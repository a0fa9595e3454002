package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.leasesync.cli.ServeCommand;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.jobs.StandardJobs;
import picocli.CommandLine;

/** The jobs' settings of a cluster run: short enough to run often, scaled so no job outgrows its kept history. */
class ClusterJobsTest {

    @Test
    void upTo200RoundsEveryJobRunsEveryFewSeconds() {
        for (int rounds : new int[] {1, 25, 200}) {
            assertThat(ClusterJobs.forRounds(rounds).intervals())
                    .containsExactly(
                            java.util.Map.entry(StandardJobs.EXPIRE_IDEMPOTENCY_KEYS, Duration.ofSeconds(4)),
                            java.util.Map.entry(StandardJobs.PRUNE_AUDIT, Duration.ofSeconds(6)),
                            java.util.Map.entry(StandardJobs.PURGE_TOMBSTONES, Duration.ofSeconds(5)),
                            java.util.Map.entry(StandardJobs.RELEASE_STALE_CLAIMS, Duration.ofSeconds(4)));
        }
    }

    @Test
    void longerRunsGetProportionallyLongerIntervals() {
        ClusterJobs j = ClusterJobs.forRounds(1000);
        assertThat(j.intervals().get(StandardJobs.EXPIRE_IDEMPOTENCY_KEYS)).isEqualTo(Duration.ofSeconds(20));
        assertThat(j.intervals().get(StandardJobs.PRUNE_AUDIT)).isEqualTo(Duration.ofSeconds(30));
        assertThat(ClusterJobs.forRounds(100_000).intervals().values())
                .allMatch(d -> d.compareTo(JobSettings.MAX_INTERVAL) <= 0);
        assertThatThrownBy(() -> ClusterJobs.forRounds(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    @Test
    void instanceOnePausesPurgeTombstonesInstanceTwoExpireIdempotencyKeysTheOthersNothing() {
        ClusterJobs j = ClusterJobs.forRounds(200);
        assertThat(pauseOf(j.serveArgs(1))).isEqualTo(StandardJobs.PURGE_TOMBSTONES);
        assertThat(pauseOf(j.serveArgs(2))).isEqualTo(StandardJobs.EXPIRE_IDEMPOTENCY_KEYS);
        assertThat(j.serveArgs(3)).doesNotContain("--job-pause");
    }

    @Test
    void theRealServeCommandAcceptsEveryOptionAndTheValuesAreValidJobSettings() {
        ClusterJobs j = ClusterJobs.forRounds(200);
        CommandLine.ParseResult parsed =
                new CommandLine(new ServeCommand()).parseArgs(j.serveArgs(1).toArray(String[]::new));
        assertThat(parsed.matchedOption("--job-interval").<List<?>>getValue()).hasSize(StandardJobs.NAMES.size());
        assertThat(parsed.matchedOption("--key-retention").<Duration>getValue()).isEqualTo(Duration.ofSeconds(5));
        assertThat(parsed.matchedOption("--tombstone-retention").<Duration>getValue())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(parsed.matchedOption("--audit-retention").<Duration>getValue())
                .isEqualTo(Duration.ofDays(3650));
        assertThat(parsed.matchedOption("--job-lease-ttl").<Duration>getValue()).isEqualTo(Duration.ofSeconds(2));
        JobSettings settings = JobSettings.defaults()
                .withLeaseTtl(j.leaseTtl())
                .withAuditRetention(j.auditRetention())
                .withTombstoneRetention(j.tombstoneRetention())
                .withBatchSize(j.batchSize());
        for (var e : j.intervals().entrySet()) {
            settings = settings.withInterval(e.getKey(), e.getValue());
        }
        assertThat(settings.interval(StandardJobs.PURGE_TOMBSTONES)).contains(Duration.ofSeconds(5));
    }

    private static String pauseOf(List<String> args) {
        int i = args.indexOf("--job-pause");
        assertThat(i).as("--job-pause in " + args).isNotNegative();
        assertThat(args.subList(i + 1, args.size())).doesNotContain("--job-pause");
        return args.get(i + 1);
    }
}
