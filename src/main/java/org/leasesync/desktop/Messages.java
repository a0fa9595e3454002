package org.leasesync.desktop;

import java.text.MessageFormat;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.FormatStyle;
import java.util.Locale;
import java.util.MissingResourceException;
import java.util.Objects;
import java.util.ResourceBundle;

/**
 * The user-facing texts of the desktop integration — tray, notifications, pause, offline, start at
 * login — from the resource bundle {@code org.leasesync.desktop.messages.properties} (UTF-8,
 * {@link MessageFormat} patterns), and times in the locale's own format ("15:00" in en-GB,
 * "3:00 PM" in en-US) and durations in its words ("5 min", "5分钟").
 *
 * <p>Immutable and thread-safe.
 */
public final class Messages {

    static final String BUNDLE = "org.leasesync.desktop.messages";

    private final Locale locale;
    private final ZoneId zone;
    private final ResourceBundle bundle;
    private final DateTimeFormatter shortTime;
    private final DateTimeFormatter shortDateTime;
    private final com.ibm.icu.text.MeasureFormat durations;

    /** @throws MissingResourceException if the bundle is not on the class path (a packaging fault) */
    public Messages(Locale locale, ZoneId zone) {
        this.locale = Objects.requireNonNull(locale, "locale");
        this.zone = Objects.requireNonNull(zone, "zone");
        // no fallback to the default locale's bundle: English chosen on a Chinese system is English
        this.bundle = ResourceBundle.getBundle(
                BUNDLE, locale, ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
        this.shortTime = localized(null, FormatStyle.SHORT, locale, zone);
        this.shortDateTime = localized(FormatStyle.MEDIUM, FormatStyle.SHORT, locale, zone);
        this.durations =
                com.ibm.icu.text.MeasureFormat.getInstance(locale, com.ibm.icu.text.MeasureFormat.FormatWidth.SHORT);
    }

    /**
     * The locale's own date/time format ({@code DateTimeFormatter.ofLocalizedTime/DateTime}), except that
     * Chinese times are 24-hour: CLDR's zh pattern is 12-hour with a 上午/下午 marker ("下午3:03"), while
     * 24-hour times ("15:03") are what Chinese desktops and sync clients show.
     */
    static DateTimeFormatter localized(FormatStyle date, FormatStyle time, Locale locale, ZoneId zone) {
        String pattern = java.time.format.DateTimeFormatterBuilder.getLocalizedDateTimePattern(
                date, time, java.time.chrono.IsoChronology.INSTANCE, locale);
        if ("zh".equals(locale.getLanguage())) {
            pattern = twentyFourHour(pattern);
        }
        return DateTimeFormatter.ofPattern(pattern, locale).withZone(zone);
    }

    /** "ah:mm" → "HH:mm": drops the day-period marker and uses the 0-23 hour. */
    static String twentyFourHour(String pattern) {
        StringBuilder out = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
                out.append(c);
            } else if (quoted) {
                out.append(c);
            } else if (c == 'a' || c == 'B') {
                // the day period goes
            } else if (c == 'h' || c == 'K') {
                if (i + 1 < pattern.length() && pattern.charAt(i + 1) == c) {
                    i++;
                }
                out.append("HH");
            } else {
                out.append(c);
            }
        }
        return out.toString().trim();
    }

    /** The system's format locale and time zone. */
    public static Messages system() {
        return new Messages(Locale.getDefault(Locale.Category.FORMAT), ZoneId.systemDefault());
    }

    public Locale locale() {
        return locale;
    }

    public ZoneId zone() {
        return zone;
    }

    /**
     * The text for {@code key} with {@code args} filled in.
     *
     * @throws MissingResourceException naming the key when the bundle has no such text
     */
    public String get(String key, Object... args) {
        String pattern = bundle.getString(key);
        return new MessageFormat(pattern, locale).format(args);
    }

    /** Whether the bundle has a text for {@code key}. */
    public boolean has(String key) {
        return bundle.containsKey(key);
    }

    /**
     * A duration in words of the locale, with CLDR's short unit names through ICU's {@code MeasureFormat}:
     * "5 min", "1 hr, 30 min", "250 ms" in English, "5分钟", "1小时30分钟" in Chinese. Each unit from days
     * down to milliseconds that is not zero is shown; zero is "0 sec" ("0秒"). Negative durations are
     * shown as their length.
     */
    public String duration(java.time.Duration d) {
        java.time.Duration left = d.abs();
        java.util.List<com.ibm.icu.util.Measure> parts = new java.util.ArrayList<>();
        long[] amounts = {
            left.toDays(), left.toHoursPart(), left.toMinutesPart(), left.toSecondsPart(), left.toMillisPart()
        };
        com.ibm.icu.util.MeasureUnit[] units = {
            com.ibm.icu.util.MeasureUnit.DAY,
            com.ibm.icu.util.MeasureUnit.HOUR,
            com.ibm.icu.util.MeasureUnit.MINUTE,
            com.ibm.icu.util.MeasureUnit.SECOND,
            com.ibm.icu.util.MeasureUnit.MILLISECOND
        };
        for (int i = 0; i < amounts.length; i++) {
            if (amounts[i] != 0) {
                parts.add(new com.ibm.icu.util.Measure(amounts[i], units[i]));
            }
        }
        if (parts.isEmpty()) {
            parts.add(new com.ibm.icu.util.Measure(0, com.ibm.icu.util.MeasureUnit.SECOND));
        }
        synchronized (durations) { // ICU documents no thread-safety for MeasureFormat: one caller at a time
            return durations.formatMeasures(parts.toArray(com.ibm.icu.util.Measure[]::new));
        }
    }

    /** A time of day in the locale's short format, e.g. "15:00". */
    public String time(Instant t) {
        return shortTime.format(t);
    }

    /**
     * A moment relative to {@code now}: its time alone when it falls on today's local date, "tomorrow,
     * 00:00" for tomorrow, else date and time in the locale's format.
     */
    public String moment(Instant t, Instant now) {
        LocalDate day = t.atZone(zone).toLocalDate();
        LocalDate today = now.atZone(zone).toLocalDate();
        if (day.equals(today)) {
            return time(t);
        }
        if (day.equals(today.plusDays(1))) {
            return get("time.tomorrow", time(t));
        }
        return shortDateTime.format(t);
    }
}
