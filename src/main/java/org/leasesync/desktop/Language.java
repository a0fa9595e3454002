package org.leasesync.desktop;

import java.util.Locale;

/**
 * The language the window speaks: the system's, or one chosen in the settings. Every text of the
 * window, tray, notifications and dialogs comes from {@code messages.properties} (English) or
 * {@code messages_zh_CN.properties} (Simplified Chinese); dates and times follow the locale.
 */
public enum Language {
    /** The system's language as the environment names it ({@link SystemLocale}); English where no translation exists. */
    SYSTEM("system"),
    ENGLISH("en"),
    CHINESE_SIMPLIFIED("zh-CN");

    private final String tag;

    Language(String tag) {
        this.tag = tag;
    }

    /** The value in {@code settings.json}: {@code system}, {@code en} or {@code zh-CN}. */
    public String tag() {
        return tag;
    }

    /**
     * Reads a {@link #tag()}.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static Language ofTag(String tag) {
        for (Language l : values()) {
            if (l.tag.equals(tag)) {
                return l;
            }
        }
        throw new IllegalArgumentException("unknown language '" + tag + "'; expected system, en or zh-CN");
    }

    /**
     * The locale for texts and formats: the system's for {@link #SYSTEM}; English keeps the system's
     * region for its formats (en-GB: 15:00; en-US: 3:00 PM); Simplified Chinese is zh-CN (24-hour times).
     */
    public Locale locale(Locale system) {
        return switch (this) {
            case SYSTEM -> system;
            case ENGLISH -> new Locale("en", system.getCountry());
            case CHINESE_SIMPLIFIED -> Locale.SIMPLIFIED_CHINESE;
        };
    }
}
