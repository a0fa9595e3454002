package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SyncSettingsTest {

    @Test
    void pushesCarryUpToTheProtocolsThousandEntriesByDefault() {
        assertThat(SyncSettings.DEFAULT.pushBatchSize()).isEqualTo(1000);
        assertThat(new SyncSettings(1000, 1000, 6, Duration.ZERO, Duration.ofHours(24)).pushBatchSize())
                .isEqualTo(1000);
    }

    @Test
    void aPushBatchAboveTheProtocolsMaximumIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> new SyncSettings(1000, 1001, 6, Duration.ZERO, Duration.ofHours(24)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("push batch size must be 1..1000, got 1001");
        assertThatThrownBy(() -> new SyncSettings(1000, 0, 6, Duration.ZERO, Duration.ofHours(24)))
                .hasMessageContaining("got 0");
    }
}
