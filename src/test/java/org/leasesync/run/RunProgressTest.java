package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class RunProgressTest {

    @Test
    void pullingHasNoFractionPushingCountsAgainstTheTotalAtItsStart() {
        RunProgress p = RunProgress.pulled(2, 150);
        assertThat(p.pushedFraction()).isEmpty();
        RunProgress push = p.pushing(4);
        assertThat(push.pagesPulled()).isEqualTo(2);
        assertThat(push.recordsPulled()).isEqualTo(150);
        assertThat(push.pushedFraction().getAsDouble()).isEqualTo(0.0);
        assertThat(push.pushedMore(1).pushedFraction().getAsDouble()).isEqualTo(0.25);
        assertThat(push.pushedMore(4).pushedMore(2).pushedFraction().getAsDouble())
                .isEqualTo(1.0); // edits saved meanwhile
        assertThat(p.pushing(0).pushedFraction().getAsDouble()).isEqualTo(1.0);
    }

    @Test
    void negativeCountsAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> new RunProgress(0, -1, 0, OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recordsPulled=-1");
        assertThatThrownBy(() -> new RunProgress(0, 0, 0, OptionalInt.of(-3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-3");
    }
}
