package org.leasesync.desktop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.leasesync.lease.LeasesyncException;

/**
 * The mapping between {@link UserSettings} and the keys of {@code settings.json} (the format is in
 * {@link SettingsFile}'s comment): reading each value with its check of shape, and writing them into
 * the file's tree so that keys this version does not know are kept. {@link SettingsFile} owns the
 * file (reading, moving an unreadable one aside, atomic writes, the window geometry, the legacy
 * server entry); the JSON shape of the settings is this class's job.
 *
 * <p>Stateless; thread-safe.
 */
final class SettingsJson {

    private SettingsJson() {}

    /** A value of the wrong shape; the message names the key. */
    static final class Unreadable extends LeasesyncException {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message);
        }
    }

    /**
     * The settings in {@code o}; a key that is absent or null has its default.
     *
     * @throws Unreadable if a value has the wrong shape
     */
    static UserSettings parse(ObjectNode o) {
        boolean notifications = bool(o, "notifications", UserSettings.DEFAULTS.notifications());
        boolean startAtLogin = bool(o, "startAtLogin", UserSettings.DEFAULTS.startAtLogin());
        boolean noTray = bool(o, "noTrayNoticeShown", UserSettings.DEFAULTS.noTrayNoticeShown());
        Optional<Pause> pause = Optional.empty();
        JsonNode p = o.get("pause");
        if (p != null && !p.isNull()) {
            if (!p.isObject()) {
                throw new Unreadable("\"pause\" must be null or an object, got " + p);
            }
            JsonNode until = p.get("until");
            if (until != null && !until.isNull()) {
                if (!until.isTextual()) {
                    throw new Unreadable("\"pause.until\" must be a time like \"2026-11-30T15:00:00Z\", got " + until);
                }
                try {
                    pause = Optional.of(new Pause(Optional.of(Instant.parse(until.asText()))));
                } catch (DateTimeParseException e) {
                    throw new Unreadable("\"pause.until\" must be a time like \"2026-11-30T15:00:00Z\", got " + until);
                }
            } else if (p.path("untilResumed").asBoolean(false)) {
                pause = Optional.of(Pause.untilResumed());
            } else {
                throw new Unreadable("\"pause\" needs \"until\" or \"untilResumed\": true, got " + p);
            }
        }
        return new UserSettings(notifications, startAtLogin, pause, noTray, launch(o));
    }

    private static LaunchSettings launch(ObjectNode o) {
        Optional<java.time.Duration> schedule = duration(o, "scheduleInterval");
        Optional<java.time.Duration> foreground = duration(o, "foregroundMinInterval");
        Language language = Language.SYSTEM;
        JsonNode lang = o.get("language");
        if (lang != null && !lang.isNull()) {
            try {
                language = Language.ofTag(lang.asText());
            } catch (IllegalArgumentException e) {
                throw new Unreadable("\"language\": " + e.getMessage());
            }
        }
        try {
            return new LaunchSettings(schedule, foreground, language);
        } catch (IllegalArgumentException e) {
            throw new Unreadable(e.getMessage());
        }
    }

    private static Optional<java.time.Duration> duration(ObjectNode o, String key) {
        JsonNode v = o.get(key);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        try {
            return Optional.of(org.leasesync.client.DurationText.parse(v.isTextual() ? v.asText() : v.toString()));
        } catch (IllegalArgumentException e) {
            throw new Unreadable("\"" + key + "\": " + e.getMessage());
        }
    }

    private static void writeLaunch(ObjectNode o, LaunchSettings l) {
        putOrRemove(o, "scheduleInterval", l.scheduleInterval().map(org.leasesync.client.DurationText::format));
        putOrRemove(
                o, "foregroundMinInterval", l.foregroundMinInterval().map(org.leasesync.client.DurationText::format));
        if (l.language() == Language.SYSTEM) {
            o.remove("language");
        } else {
            o.put("language", l.language().tag());
        }
    }

    private static void putOrRemove(ObjectNode o, String key, Optional<String> value) {
        value.ifPresentOrElse(v -> o.put(key, v), () -> o.remove(key));
    }

    /** Puts {@code s} into {@code o}, leaving every other key of {@code o} as it is. */
    static void write(ObjectNode o, UserSettings s) {
        o.put("notifications", s.notifications());
        o.put("startAtLogin", s.startAtLogin());
        if (s.pause().isEmpty()) {
            o.putNull("pause");
        } else {
            ObjectNode p = JsonNodeFactory.instance.objectNode();
            s.pause()
                    .get()
                    .until()
                    .ifPresentOrElse(u -> p.put("until", u.toString()), () -> p.put("untilResumed", true));
            o.set("pause", p);
        }
        o.put("noTrayNoticeShown", s.noTrayNoticeShown());
        writeLaunch(o, s.launch());
    }

    private static boolean bool(ObjectNode o, String key, boolean dflt) {
        JsonNode v = o.get(key);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isBoolean()) {
            throw new Unreadable("\"" + key + "\" must be true or false, got " + v);
        }
        return v.booleanValue();
    }
}
