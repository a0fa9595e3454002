package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code Retry-After} in both forms of RFC 9110 §10.2.3, read against a fixed clock. */
@Timeout(10)
class RetryAfterTest {

    static final Clock AT = Clock.fixed(Instant.parse("2026-10-21T07:28:00Z"), ZoneOffset.UTC);

    @Test
    void deltaSecondsAreAWaitFromNow() {
        assertThat(HttpErrors.retryAfterMillis("120", AT)).isEqualTo(120_000);
        assertThat(HttpErrors.retryAfterMillis(" 0 ", AT)).isZero();
    }

    @Test
    void anHttpDateIsTheWaitUntilThatInstantByTheInjectedClock() {
        assertThat(HttpErrors.retryAfterMillis("Wed, 21 Oct 2026 07:29:30 GMT", AT))
                .isEqualTo(90_000);
        assertThat(HttpErrors.retryAfterMillis("Wed, 21 Oct 2026 07:00:00 GMT", AT))
                .as("in the past")
                .isZero();
    }

    @Test
    void anAbsentOrUnreadableValueImposesNoWait() {
        assertThat(HttpErrors.retryAfterMillis(null, AT)).isEqualTo(-1);
        assertThat(HttpErrors.retryAfterMillis("soon", AT)).isEqualTo(-1);
        assertThat(HttpErrors.retryAfterMillis("-5", AT)).isEqualTo(-1);
        assertThat(HttpErrors.retryAfterMillis("21 Oct 2026", AT)).isEqualTo(-1);
    }

    @Test
    void aWaitIsCutToADay() {
        assertThat(HttpErrors.retryAfterMillis("999999999999999999999", AT))
                .isEqualTo(HttpErrors.LONGEST_RETRY_AFTER.toMillis());
        assertThat(HttpErrors.retryAfterMillis("Fri, 21 Oct 2039 07:28:00 GMT", AT))
                .isEqualTo(HttpErrors.LONGEST_RETRY_AFTER.toMillis());
    }
}
