package org.leasesync.duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.leasesync.cli.DurationConverter;
import org.leasesync.client.DurationText;
import org.leasesync.server.faults.Durations;

/** One written form of a duration for the client's options and settings, {@code serve} and fault specs. */
class DurationGrammarTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "250ms   | PT0.25S",
                "60s     | PT60S",
                "5 s     | PT5S",
                "5m      | PT5M",
                "2H      | PT2H",
                "1d      | PT24H",
                " 30s    | PT30S",
                "PT1M30S | PT1M30S",
                "pt2s    | PT2S",
                "P1D     | PT24H"
            })
    void everyFormReadsTheSameEverywhere(String text, String iso) {
        Duration expected = Duration.parse(iso);
        assertThat(DurationGrammar.parse(text)).isEqualTo(expected);
        // the client's reader, picocli's converter of every duration option (client commands and serve)
        // and the server's fault specs agree, so what one accepts the others do too
        assertThat(DurationText.parse(text)).isEqualTo(expected);
        assertThat(new DurationConverter().convert(text)).isEqualTo(expected);
        assertThat(Durations.parse(text)).isEqualTo(expected);
    }

    @Test
    void badTextAndNegativeDurationsAreRefusedNamingTheTextAndTheForms() {
        for (String bad : List.of("", "5x", "s", "-5s", "5 s s", "1.5s", "P", "1234567890123s")) {
            assertThatThrownBy(() -> DurationGrammar.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("'" + bad + "' is not a duration")
                    .hasMessageEndingWith(DurationGrammar.ACCEPTED_FORMS);
        }
        assertThatThrownBy(() -> DurationGrammar.parse("PT-5S"))
                .hasMessage("'PT-5S' is a negative duration; use " + DurationGrammar.ACCEPTED_FORMS);
        assertThatThrownBy(() -> DurationGrammar.parse(null)).hasMessageStartingWith("'null' is not a duration");
    }
}
