package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.text.MessageFormat;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The English and Simplified Chinese bundles: the same keys, valid patterns, the locale's time format. */
class MessagesBundleTest {

    static Properties load(String name) throws IOException {
        Properties p = new Properties();
        try (InputStream in = MessagesBundleTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        }
        return p;
    }

    @Test
    void everyEnglishKeyIsTranslatedAndTheChineseBundleHasNoOtherKeys() throws IOException {
        Properties en = load("messages.properties");
        Properties zh = load("messages_zh_CN.properties");
        assertThat(en).hasSizeGreaterThan(100);
        TreeSet<String> missing = new TreeSet<>(en.stringPropertyNames());
        missing.removeAll(zh.stringPropertyNames());
        TreeSet<String> extra = new TreeSet<>(zh.stringPropertyNames());
        extra.removeAll(en.stringPropertyNames());
        assertThat(missing).as("English keys without a Chinese text").isEmpty();
        assertThat(extra).as("Chinese keys English does not have").isEmpty();
    }

    @Test
    void everyPatternParsesAndTheChineseTextsAreChinese() throws IOException {
        Properties zh = load("messages_zh_CN.properties");
        for (Properties p : new Properties[] {load("messages.properties"), zh}) {
            for (String k : p.stringPropertyNames()) {
                new MessageFormat(p.getProperty(k)); // throws on a broken pattern
            }
        }
        for (String k : zh.stringPropertyNames()) {
            String v = zh.getProperty(k);
            boolean exempt = k.startsWith("language.")
                    || k.equals("signin.servers.prompt")
                    || k.equals("sentence.end")
                    || v.matches("[{}0-9a-z ,#|<.()（）：:—·×、-]*");
            if (!exempt) {
                assertThat(v.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN))
                        .as("%s is Chinese: %s", k, v)
                        .isTrue();
            }
        }
    }

    @Test
    void chineseTextsAndTwentyFourHourTimesUnderZhCn() {
        Messages zh = new Messages(Locale.SIMPLIFIED_CHINESE, ZoneId.of("Asia/Shanghai"));
        Instant t = Instant.parse("2026-11-30T07:03:00Z"); // 15:03 in Shanghai
        assertThat(zh.time(t)).isEqualTo("15:03");
        assertThat(zh.get("pause.until", zh.time(t))).isEqualTo("暂停至 15:03");
        assertThat(zh.get("card.offline", 3, zh.time(t))).isEqualTo("离线 — 3 项更改等待中 · 下次尝试 15:03");
        assertThat(zh.moment(Instant.parse("2026-12-01T07:03:00Z"), t)).isEqualTo("明天 15:03");
        StatusTexts texts = new StatusTexts(zh);
        assertThat(texts.time(t)).isEqualTo("15:03:00");
        assertThat(texts.progress("pulled 12 records")).isEqualTo("已拉取 12 条记录");
        assertThat(texts.progress("pushing 1 change")).isEqualTo("正在推送 1 项更改");
        assertThat(texts.progress("something new"))
                .as("an unknown form is shown as it is")
                .isEqualTo("something new");
        StatusTexts en = new StatusTexts(new Messages(Locale.UK, ZoneId.of("Europe/London")));
        assertThat(en.progress("pulled 1 record")).isEqualTo("pulled 1 record");
        assertThat(en.progress("pulled 0 records")).isEqualTo("pulled 0 records");
        assertThat(en.progress("pushing 3 changes")).isEqualTo("pushing 3 changes");
    }

    @Test
    void englishChosenOnAChineseSystemIsEnglishNotTheSystemsBundle() {
        Locale before = Locale.getDefault();
        try {
            Locale.setDefault(Locale.SIMPLIFIED_CHINESE);
            Messages en = new Messages(Language.ENGLISH.locale(Locale.UK), ZoneId.of("Europe/London"));
            assertThat(en.get("card.syncNow")).isEqualTo("Sync now");
            assertThat(new Messages(Language.SYSTEM.locale(Locale.getDefault()), ZoneId.of("Europe/London"))
                            .get("card.syncNow"))
                    .isEqualTo("立即同步");
            assertThat(new Messages(Locale.GERMANY, ZoneId.of("Europe/Berlin")).get("card.syncNow"))
                    .as("a language without a translation: English")
                    .isEqualTo("Sync now");
        } finally {
            Locale.setDefault(before);
        }
    }
}
