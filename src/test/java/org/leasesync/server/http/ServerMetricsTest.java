package org.leasesync.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.Exposition;
import org.leasesync.server.jobs.JobResult;

/** The job hook of {@link ServerMetrics} and the endpoint classification of {@link RequestEndpoint}. */
class ServerMetricsTest {

    private final ServerMetrics metrics = new ServerMetrics("host/1/abc", "h2");

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void jobRunsAreTimedByJobAndResult() {
        metrics.jobRun("purge_expired_keys", JobResult.OK, Duration.ofMillis(250));
        metrics.jobRun("purge_expired_keys", JobResult.OK, Duration.ofMillis(750));
        metrics.jobRun("purge_expired_keys", JobResult.SKIPPED, Duration.ZERO);
        metrics.jobRun("compact-audit", JobResult.FAILED, Duration.ofMillis(5));

        Exposition m = new Exposition(metrics.scrape());

        String count = "leasesync_server_jobs_seconds_count";
        assertThat(m.value(count, "job", "purge_expired_keys", "result", "ok")).isEqualTo(2);
        assertThat(m.value("leasesync_server_jobs_seconds_sum", "job", "purge_expired_keys", "result", "ok"))
                .isEqualTo(1.0);
        assertThat(m.value(count, "job", "purge_expired_keys", "result", "skipped"))
                .isEqualTo(1);
        assertThat(m.value(count, "job", "compact-audit", "result", "failed")).isEqualTo(1);
        assertThat(m.find(count)).hasSize(3);
    }

    @Test
    void aJobNameThatIsNotACodeConstantIsRefused() {
        assertThatThrownBy(() -> metrics.jobRun("Purge Keys", JobResult.OK, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Purge Keys'");
        assertThatThrownBy(() -> metrics.jobRun("", JobResult.OK, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job name");
        assertThatThrownBy(() -> metrics.jobRun("ok", JobResult.OK, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
    }

    @Test
    void requestsAreClassifiedIntoABoundedSetOfEndpoints() {
        assertThat(RequestEndpoint.of("GET", "/v1/users/alice/scopes/backup/changes"))
                .isEqualTo(RequestEndpoint.PULL);
        assertThat(RequestEndpoint.of("POST", "/v1/users/u-17/scopes/nonsense/changes"))
                .isEqualTo(RequestEndpoint.PUSH);
        assertThat(RequestEndpoint.of("GET", "/v1/users/bob/scopes/backup/pushes/k%2F1"))
                .isEqualTo(RequestEndpoint.PUSH_STATUS);
        assertThat(RequestEndpoint.of("PUT", "/v1/admin/faults")).isEqualTo(RequestEndpoint.ADMIN);
        assertThat(RequestEndpoint.of("GET", "/health")).isEqualTo(RequestEndpoint.HEALTH);
        assertThat(RequestEndpoint.of("POST", "/metrics")).isEqualTo(RequestEndpoint.METRICS);
        assertThat(RequestEndpoint.of("DELETE", "/v1/users/alice/scopes/backup/changes"))
                .isEqualTo(RequestEndpoint.OTHER);
        assertThat(RequestEndpoint.of("GET", "/v1/users/al%ZZ/scopes/backup/changes"))
                .isEqualTo(RequestEndpoint.OTHER);
        assertThat(RequestEndpoint.of("GET", "/favicon.ico")).isEqualTo(RequestEndpoint.OTHER);
        assertThat(RequestEndpoint.PUSH_STATUS.tag()).isEqualTo("push_status");
    }
}
