package org.leasesync.app;

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
 * login — from the resource bundle {@code org/leasesync/app/messages.properties} (UTF-8,
 * {@link MessageFormat} patterns), and times in the locale's own format ("15:00" in en-GB,
 * "3:00 PM" in en-US).
 *
 * <p>Immutable and thread-safe.
 */
public final class Messages {

    static final String BUNDLE = "org.leasesync.app.messages";

    private final Locale locale;
    private final ZoneId zone;
    private final ResourceBundle bundle;
    private final DateTimeFormatter shortTime;
    private final DateTimeFormatter shortDateTime;

    /** @throws MissingResourceException if the bundle is not on the class path (a packaging fault) */
    public Messages(Locale locale, ZoneId zone) {
        this.locale = Objects.requireNonNull(locale, "locale");
        this.zone = Objects.requireNonNull(zone, "zone");
        // no fallback to the default locale's bundle: English chosen on a Chinese system is English
        this.bundle = ResourceBundle.getBundle(BUNDLE, locale,
                ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
        this.shortTime = DateTimeFormatter.ofLocalizedTime(FormatStyle.SHORT).withLocale(locale).withZone(zone);
        this.shortDateTime = DateTimeFormatter.ofLocalizedDateTime(FormatStyle.MEDIUM, FormatStyle.SHORT)
                .withLocale(locale).withZone(zone);
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
