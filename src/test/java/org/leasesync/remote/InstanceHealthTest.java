package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-instance backoff on a settable monotonic clock. */
@Timeout(10)
class InstanceHealthTest {

    final AtomicLong nanos = new AtomicLong(1_000);
    final InstanceHealth health = new InstanceHealth(3, nanos::get);

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void anUnhealthyFailureAvoidsTheUrlForTheFirstBackoffThenItIsTriedFirstAgain() {
        health.failed(0, FailureClass.NO_RESPONSE);

        assertThat(health.avoided(0)).isTrue();
        assertThat(health.order(0)).containsExactly(1, 2, 0);
        advance(InstanceHealth.FIRST.minusMillis(1));
        assertThat(health.avoided(0)).isTrue();
        advance(Duration.ofMillis(1));
        assertThat(health.avoided(0)).isFalse();
        assertThat(health.order(0)).containsExactly(0, 1, 2);
    }

    @Test
    void eachFurtherFailureDoublesTheBackoffUpToTheLongestAndAnAnswerEndsIt() {
        for (int i = 0; i < 3; i++) {
            health.failed(1, FailureClass.REFUSED);
        }
        advance(InstanceHealth.FIRST.multipliedBy(4).minusMillis(1));
        assertThat(health.avoided(1)).as("third failure: 4 x the first").isTrue();
        advance(Duration.ofMillis(1));
        assertThat(health.avoided(1)).isFalse();

        for (int i = 0; i < 20; i++) {
            health.failed(1, FailureClass.UNAVAILABLE);
        }
        advance(InstanceHealth.LONGEST);
        assertThat(health.avoided(1)).as("capped").isFalse();

        health.failed(1, FailureClass.UNAVAILABLE);
        health.answered(1);
        assertThat(health.avoided(1)).isFalse();
        health.failed(1, FailureClass.UNAVAILABLE);
        advance(InstanceHealth.FIRST);
        assertThat(health.avoided(1)).as("an answer started the count again").isFalse();
    }

    @Test
    void aBrokenConnectionOrAGatewayErrorDoesNotAvoidTheUrl() {
        health.failed(0, FailureClass.DROPPED);
        health.failed(0, FailureClass.ANSWERED_LATE);
        assertThat(health.avoided(0)).isFalse();
    }

    @Test
    void whenEveryUrlIsAvoidedTheSoonestToRecoverIsTriedFirst() {
        health.failed(0, FailureClass.NO_RESPONSE);
        health.failed(0, FailureClass.NO_RESPONSE); // 20 s
        advance(Duration.ofSeconds(1));
        health.failed(1, FailureClass.NO_RESPONSE); // 10 s from now
        health.failed(2, FailureClass.NO_RESPONSE);
        health.failed(2, FailureClass.NO_RESPONSE);
        health.failed(2, FailureClass.NO_RESPONSE); // 40 s

        assertThat(health.order(0)).containsExactly(1, 0, 2);
    }
}
