package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.sync.RemoteException;
import org.leasesync.testing.ClientStack;

/**
 * An HTTP-date {@code Retry-After} from the real reference server read by a client whose wall clock
 * is hours off: the wait is what the server meant (its date against its own {@code Date} header),
 * not hours, and not nothing.
 */
@Timeout(30)
class RetryAfterServerClockTest {

    private ReferenceServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private long waitSeenByAClientOff(Duration off) {
        server = ReferenceServer.start(ServerConfig.defaults());
        server.faults().set(new FaultSettings(0, 0, 0, 0, 1, 2, true));
        HttpSyncRemote remote = new HttpSyncRemote(
                ServerUrls.single(server.baseUrl()),
                ClientStack.HTTP,
                HttpSettings.DEFAULT,
                server::tokenFor,
                "client-off",
                TimeSource.system(Clock.offset(Clock.systemUTC(), off)));
        RemoteException e = (RemoteException)
                catchThrowable(() -> remote.pull(TaskKey.of("alice", "course_sync"), Optional.empty(), 10, 1, "run-1"));
        assertThat(e).as("the throttled pull").isNotNull();
        assertThat(e.status()).isEqualTo(429);
        return e.retryAfterMillis();
    }

    @Test
    void aClientHoursBehindWaitsTheServersSecondsNotHours() {
        // the date is the server's clock rounded up plus 2 s; its Date header is the same clock cut to the second
        assertThat(waitSeenByAClientOff(Duration.ofHours(-3))).isBetween(2_000L, 4_000L);
    }

    @Test
    void aClientHoursAheadStillWaits() {
        assertThat(waitSeenByAClientOff(Duration.ofHours(5))).isBetween(2_000L, 4_000L);
    }

    @Test
    void withoutADateHeaderTheDateIsReadAgainstTheClientsClock() {
        Clock at = Clock.fixed(java.time.Instant.parse("2026-10-21T07:28:00Z"), java.time.ZoneOffset.UTC);
        assertThat(HttpErrors.retryAfterMillis("Wed, 21 Oct 2026 07:28:30 GMT", null, at))
                .isEqualTo(30_000);
        assertThat(HttpErrors.retryAfterMillis("Wed, 21 Oct 2026 07:28:30 GMT", "not a date", at))
                .isEqualTo(30_000);
        assertThat(HttpErrors.retryAfterMillis("Wed, 21 Oct 2026 04:28:30 GMT", "Wed, 21 Oct 2026 04:28:20 GMT", at))
                .as("against the server's Date, 3 h behind this clock (which would call it past)")
                .isEqualTo(10_000);
    }
}
