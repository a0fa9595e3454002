package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The system's language from the environment: LANGUAGE (a list) first, then LC_ALL, LC_MESSAGES,
 * LANG; C/POSIX is English; the JVM's default locale only when none is set — so a Chinese LANG whose
 * locale the C library lacks (the JVM then says en_US) still gives Chinese.
 */
@Timeout(10)
class SystemLocaleTest {

    static final Locale JVM = Locale.US; // what the JVM reports when the C library fell back to C

    static Map<String, String> env(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(env(), JVM),
                Arguments.of(env("LANG", "zh_CN.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANG", "zh_CN.GB18030"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANG", "zh_SG.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANG", "zh"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANG", "zh_TW.UTF-8"), Locale.TRADITIONAL_CHINESE),
                Arguments.of(env("LANG", "en_GB.UTF-8"), Locale.UK),
                Arguments.of(env("LANG", "C"), Locale.ENGLISH),
                Arguments.of(env("LANG", "C.UTF-8"), Locale.ENGLISH),
                Arguments.of(env("LANG", "POSIX"), Locale.ENGLISH),
                Arguments.of(env("LANG", "de_DE.UTF-8@euro"), Locale.GERMANY),
                Arguments.of(env("LANG", ""), JVM),
                Arguments.of(env("LANG", "zh_CN.UTF-8", "LC_MESSAGES", "en_GB.UTF-8"), Locale.UK),
                Arguments.of(env("LANG", "en_GB.UTF-8", "LC_MESSAGES", "zh_CN.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LC_MESSAGES", "zh_CN.UTF-8", "LC_ALL", "C"), Locale.ENGLISH),
                Arguments.of(env("LC_ALL", "zh_CN.UTF-8", "LANG", "C"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LC_ALL", "", "LANG", "zh_CN.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANGUAGE", "zh_CN:en_US", "LANG", "en_GB.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANGUAGE", "en", "LC_ALL", "zh_CN.UTF-8"), Locale.ENGLISH),
                Arguments.of(env("LANGUAGE", "fr:de:zh_CN", "LANG", "en_GB.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANGUAGE", "zh_TW:zh_CN"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANGUAGE", "fr", "LANG", "zh_CN.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANGUAGE", "C", "LANG", "zh_CN.UTF-8"), Locale.ENGLISH),
                Arguments.of(env("LANGUAGE", "", "LANG", "zh_CN.UTF-8"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANGUAGE", "zh_Hans"), Locale.SIMPLIFIED_CHINESE),
                Arguments.of(env("LANG", "garbage!"), JVM));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("cases")
    void languageFromTheEnvironment(Map<String, String> env, Locale expected) {
        assertThat(SystemLocale.of(env, JVM)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}: the window speaks Chinese")
    @MethodSource("chinese")
    void aChineseEnvironmentGivesTheChineseTextsThoughTheJvmSaysEnglish(Map<String, String> env) {
        Messages m = new Messages(Language.SYSTEM.locale(SystemLocale.of(env, JVM)), java.time.ZoneOffset.UTC);
        assertThat(m.get("tray.quit"))
                .isEqualTo(new Messages(Locale.SIMPLIFIED_CHINESE, java.time.ZoneOffset.UTC).get("tray.quit"))
                .isNotEqualTo(new Messages(Locale.ENGLISH, java.time.ZoneOffset.UTC).get("tray.quit"));
    }

    static Stream<Map<String, String>> chinese() {
        return Stream.of(env("LANG", "zh_CN.UTF-8"), env("LANGUAGE", "zh_CN:en"), env("LC_ALL", "zh_SG.UTF-8"));
    }

    @ParameterizedTest(name = "settings {0} wins over LANG=zh_CN.UTF-8")
    @MethodSource("settings")
    void theSettingsLanguageWinsOverTheEnvironment(Language chosen, String expectedLanguage) {
        Locale system = SystemLocale.of(env("LANG", "zh_CN.UTF-8"), JVM);
        assertThat(chosen.locale(system).getLanguage()).isEqualTo(expectedLanguage);
    }

    static Stream<Arguments> settings() {
        return Stream.of(
                Arguments.of(Language.ENGLISH, "en"),
                Arguments.of(Language.CHINESE_SIMPLIFIED, "zh"),
                Arguments.of(Language.SYSTEM, "zh"));
    }
}
