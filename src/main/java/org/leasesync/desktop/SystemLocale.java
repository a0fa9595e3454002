package org.leasesync.desktop;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The system's language, read from the environment the way POSIX and GNU gettext name it, not from
 * the JVM's default locale: the JVM takes its locale from the C library, which falls back to C (and
 * the JVM to en_US) whenever {@code LANG} names a locale that is not generated on the machine
 * ({@code LANG=zh_CN.UTF-8} without {@code locale-gen zh_CN.UTF-8}) — the window was then English on a
 * Chinese desktop. The window's texts come from its own bundles and need no C library locale.
 *
 * <p>The rule, in order:
 * <ol>
 *   <li>{@code LANGUAGE}, a colon-separated list of languages ({@code zh_CN:en}): the first one the
 *       window has texts for (English, Simplified Chinese) — {@code C} and {@code POSIX} count as
 *       English. GNU gettext ignores {@code LANGUAGE} when the locale is C; here it is not ignored,
 *       because the locale is often C only for want of a generated locale.</li>
 *   <li>else the first non-empty of {@code LC_ALL}, {@code LC_MESSAGES}, {@code LANG} (POSIX.1-2017,
 *       Base Definitions §8.2, precedence of the locale variables), whatever language it names;
 *       {@code C} and {@code POSIX} mean English.</li>
 *   <li>else the JVM's default locale.</li>
 * </ol>
 * A value is {@code language[_territory][.codeset][@modifier]}; the codeset and modifier are ignored
 * for the language ({@code zh_CN.GB18030} is Simplified Chinese too). Chinese without a territory, or
 * of CN or SG, or zh_Hans, is Simplified Chinese (zh-CN); of TW, HK or MO it is Traditional, which
 * has no texts (English).
 *
 * <p>Stateless and thread-safe. {@code settings.json}'s {@code language}, when not {@code system},
 * wins over all of this ({@link Language#locale}).
 */
public final class SystemLocale {

    private SystemLocale() {}

    /** The system's language for this process: {@link #of(Map, Locale)} of its environment and default locale. */
    public static Locale current() {
        return of(System.getenv(), Locale.getDefault());
    }

    /**
     * The system's language as the rule above reads {@code env}.
     *
     * @param jvmDefault the locale when no variable is set (the JVM's default)
     */
    public static Locale of(Map<String, String> env, Locale jvmDefault) {
        String list = env.get("LANGUAGE");
        if (list != null && !list.isBlank()) {
            for (String entry : list.split(":")) {
                Optional<Locale> l = parse(entry);
                if (l.isPresent() && hasTexts(l.get())) {
                    return withBundleName(l.get());
                }
            }
        }
        for (String name : new String[] {"LC_ALL", "LC_MESSAGES", "LANG"}) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                return parse(value).map(SystemLocale::withBundleName).orElse(jvmDefault);
            }
        }
        return jvmDefault;
    }

    /** Simplified Chinese as the locale its bundle is named for (zh_CN); others as they are. */
    private static Locale withBundleName(Locale l) {
        return isSimplifiedChinese(l) ? Locale.SIMPLIFIED_CHINESE : l;
    }

    /** Whether the window has its texts in {@code l}'s language (English is the base bundle). */
    static boolean hasTexts(Locale l) {
        return l.getLanguage().equals("en") || isSimplifiedChinese(l);
    }

    private static boolean isSimplifiedChinese(Locale l) {
        return l.getLanguage().equals("zh")
                && (l.getCountry().isEmpty()
                        || l.getCountry().equals("CN")
                        || l.getCountry().equals("SG"));
    }

    /**
     * A POSIX locale name as a locale: {@code C}/{@code POSIX} (with any codeset, {@code C.UTF-8}) as
     * English; empty for what is no language name.
     */
    static Optional<Locale> parse(String value) {
        String v = value.trim();
        int cut = indexOfAny(v, ".@");
        String name = cut < 0 ? v : v.substring(0, cut);
        if (name.equals("C") || name.equals("POSIX")) {
            return Optional.of(Locale.ENGLISH);
        }
        String[] parts = name.split("[_-]", 2);
        if (!parts[0].matches("[A-Za-z]{2,3}")) {
            return Optional.empty();
        }
        String language = parts[0].toLowerCase(Locale.ROOT);
        String country =
                parts.length > 1 && parts[1].matches("[A-Za-z]{2}|[0-9]{3}") ? parts[1].toUpperCase(Locale.ROOT) : "";
        if (language.equals("zh") && parts.length > 1 && parts[1].equalsIgnoreCase("Hans")) {
            return Optional.of(Locale.SIMPLIFIED_CHINESE);
        }
        if (language.equals("zh") && parts.length > 1 && parts[1].equalsIgnoreCase("Hant")) {
            return Optional.of(Locale.TRADITIONAL_CHINESE);
        }
        return Optional.of(new Locale(language, country));
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
