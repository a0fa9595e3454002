package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.jobs.StandardJobs;

/**
 * The server the app embeds: the demo accounts on its own H2 file, its stale-claim job hourly (the only
 * server on its file needs no minute-by-minute clean-up, and an idle tray pays for every run), every
 * other job at its default.
 */
class EmbeddedDemoConfigTest {

    @Test
    void theEmbeddedServerDeletesStaleClaimsHourlyAndRunsTheOtherJobsAtTheirDefaults() {
        ServerConfig c = EmbeddedDemo.serverConfig(Path.of("/tmp/embedded-server"));
        assertThat(c.seed()).isEqualTo(org.leasesync.server.demo.Seed.DEMO);
        assertThat(c.database().describe()).contains("/tmp/embedded-server");
        assertThat(c.jobs().interval(StandardJobs.RELEASE_STALE_CLAIMS)).contains(Duration.ofHours(1));
        for (String job : StandardJobs.NAMES) {
            if (!job.equals(StandardJobs.RELEASE_STALE_CLAIMS)) {
                assertThat(c.jobs().interval(job)).as(job).contains(StandardJobs.DEFAULT_INTERVALS.get(job));
            }
        }
    }
}
