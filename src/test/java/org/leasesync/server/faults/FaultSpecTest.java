package org.leasesync.server.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.leasesync.duration.DurationGrammar;
import org.leasesync.server.ServerConfig;

class FaultSpecTest {

    @Test
    void parsesEveryKindAndDurationForm() {
        assertThat(FaultSpec.parse("latency=250ms"))
                .isEqualTo(new FaultSpec(FaultSpec.Kind.LATENCY, 0, Duration.ofMillis(250)));
        assertThat(FaultSpec.parse("fail-push=3")).isEqualTo(new FaultSpec(FaultSpec.Kind.FAIL_PUSH, 3, Duration.ZERO));
        assertThat(FaultSpec.parse("drop-after-apply=1").kind()).isEqualTo(FaultSpec.Kind.DROP_AFTER_APPLY);
        assertThat(FaultSpec.parse("delay-after-apply=2s").duration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(FaultSpec.parse("delay-after-apply=1m").duration()).isEqualTo(Duration.ofMinutes(1));
        assertThat(FaultSpec.parse("latency=PT2S").duration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(FaultSpec.parse("throttle=0").count()).isZero();
    }

    @Test
    void toStringRoundTrips() {
        for (String s : new String[] {"latency=250ms", "fail-push=2", "delay-after-apply=PT1.5S", "throttle=7"}) {
            FaultSpec spec = FaultSpec.parse(s);
            assertThat(FaultSpec.parse(spec.toString())).isEqualTo(spec);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "latency",
                "latency=",
                "latency=fast",
                "latency=-1s",
                "fail-push=-1",
                "fail-push=2s",
                "fail-push=many",
                "explode=1",
                "throttle=1.5",
                "=3"
            })
    void rejectsBadSpecsNamingTheSpecAndTheAcceptedForms(String spec) {
        assertThatThrownBy(() -> FaultSpec.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + spec + "'")
                .hasMessageContaining("fail-push=N")
                .hasMessageContaining(DurationGrammar.ACCEPTED_FORMS);
    }

    @Test
    void rejectsNull() {
        assertThatThrownBy(() -> FaultSpec.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void durationsAcceptHoursAndIsoDays() {
        assertThat(Durations.parse("24h")).isEqualTo(Duration.ofHours(24));
        assertThat(Durations.parse("P1D")).isEqualTo(Duration.ofDays(1));
        assertThatThrownBy(() -> Durations.parse("PT-1S")).hasMessageContaining("negative");
        assertThatThrownBy(() -> Durations.parse("3 days")).hasMessageContaining("'3 days'");
    }

    @Test
    void switchesApplySpecsAndCountDown() {
        FaultSwitches f = new FaultSwitches();
        f.apply(FaultSpec.parse("fail-push=2"));
        f.apply(FaultSpec.parse("latency=250ms"));
        assertThat(f.snapshot()).isEqualTo(new FaultSettings(250, 2, 0, 0, 0));
        assertThat(f.takeFailPush()).isTrue();
        assertThat(f.takeFailPush()).isTrue();
        assertThat(f.takeFailPush()).isFalse();
        assertThat(f.snapshot().failPush()).isZero();
    }

    @Test
    void configValidationNamesTheBadValue() {
        ServerConfig d = ServerConfig.defaults();
        assertThatThrownBy(() -> d.withPort(70000)).hasMessageContaining("70000");
        assertThatThrownBy(() -> d.withBindAddress(" ")).hasMessageContaining("bindAddress");
        assertThatThrownBy(() -> d.withKeyRetention(Duration.ZERO)).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> new FaultSettings(0, -3, 0, 0, 0))
                .hasMessageContaining("failPush")
                .hasMessageContaining("-3");
    }
}
