package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.remote.ServerUrls;

/**
 * Durations in the window are in the window's language, with CLDR's unit names (ICU MeasureFormat):
 * "every 5 min" and "每5分钟", never the command line's "5m" inside a Chinese sentence.
 */
@Timeout(30)
class DurationWordsTest {

    static final Messages EN = new Messages(Locale.US, ZoneOffset.UTC);
    static final Messages ZH = new Messages(Locale.SIMPLIFIED_CHINESE, ZoneOffset.UTC);

    @Test
    void durationsInEnglishAndChinese() {
        assertThat(EN.duration(Duration.ofMinutes(5))).isEqualTo("5 min");
        assertThat(ZH.duration(Duration.ofMinutes(5))).isEqualTo("5分钟");
        assertThat(EN.duration(Duration.ofSeconds(30))).isEqualTo("30 sec");
        assertThat(ZH.duration(Duration.ofSeconds(30))).isEqualTo("30秒");
        assertThat(EN.duration(Duration.ofMinutes(90))).isEqualTo("1 hr, 30 min");
        assertThat(ZH.duration(Duration.ofMinutes(90))).isEqualTo("1小时30分钟");
        assertThat(EN.duration(Duration.ofDays(1))).isEqualTo("1 day");
        assertThat(ZH.duration(Duration.ofDays(2))).isEqualTo("2天");
        assertThat(EN.duration(Duration.ofMillis(250))).isEqualTo("250 ms");
        assertThat(ZH.duration(Duration.ofMillis(250))).isEqualTo("250毫秒");
        assertThat(EN.duration(Duration.ZERO)).isEqualTo("0 sec");
        assertThat(ZH.duration(Duration.ofSeconds(250))).isEqualTo("4分钟10秒");
        assertThat(new Messages(Locale.UK, ZoneOffset.UTC).duration(Duration.ofMinutes(5)))
                .as("CLDR's en-GB")
                .isEqualTo("5 mins");
    }

    @Test
    void theFooterSaysItsIntervalsInTheWindowsLanguage() {
        ServerUrls servers = ServerUrls.parse("http://127.0.0.1:8787");
        String en = new StatusTexts(EN).footer(Duration.ofMinutes(5), Duration.ofMinutes(1), servers);
        String zh = new StatusTexts(ZH).footer(Duration.ofMinutes(5), Duration.ofMinutes(1), servers);
        assertThat(en).startsWith("Syncs start every 5 min (timer; skipped when synced in the last 4 min,");
        assertThat(en).contains("unless synced in the last 1 min)");
        assertThat(zh).startsWith("同步会在以下时机开始：每5分钟一次（定时；若最近4分钟内已同步则跳过");
        assertThat(zh).contains("若最近1分钟内已同步则跳过");
        for (String unit : List.of("5m", "4m", "1m")) {
            assertThat(zh).doesNotContain(unit);
            assertThat(en).doesNotContain(unit);
        }
    }
}
