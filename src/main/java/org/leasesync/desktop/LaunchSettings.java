package org.leasesync.desktop;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.remote.ServerUrls;

/**
 * The start options the settings dialog keeps in {@code settings.json}, so that the window started
 * with no flags (the menu entry) uses them. A flag given on the command line (or its environment
 * variable) wins over the file for that launch. Empty means "not set": the command line's default.
 *
 * <p>Immutable; validated in the constructor with the same ranges as the command line.
 *
 * @param scheduleInterval the timer trigger's interval, at least 1 s
 * @param foregroundMinInterval no foreground sync within this of a key's last success, not negative
 * @param language the window's language
 * @param server an external sync server and its account; empty for the embedded demo server
 */
public record LaunchSettings(Optional<Duration> scheduleInterval, Optional<Duration> foregroundMinInterval,
                             Language language, Optional<ServerAccount> server) {

    /** Nothing set. */
    public static final LaunchSettings NONE = new LaunchSettings(Optional.empty(), Optional.empty(), Language.SYSTEM,
            Optional.empty());

    /** The shortest schedule interval (as {@code --schedule-interval}). */
    public static final Duration MIN_SCHEDULE_INTERVAL = Duration.ofSeconds(1);

    /** @throws IllegalArgumentException naming the setting and the bad value */
    public LaunchSettings {
        Objects.requireNonNull(scheduleInterval, "scheduleInterval");
        Objects.requireNonNull(foregroundMinInterval, "foregroundMinInterval");
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(server, "server");
        scheduleInterval.ifPresent(d -> {
            if (d.compareTo(MIN_SCHEDULE_INTERVAL) < 0) {
                throw new IllegalArgumentException("schedule interval must be at least 1s, got " + d);
            }
        });
        foregroundMinInterval.ifPresent(d -> {
            if (d.isNegative()) {
                throw new IllegalArgumentException("foreground minimum interval must not be negative, got " + d);
            }
        });
    }

    /**
     * An external sync server and the account used on it.
     *
     * @param urls the server URL(s), as {@code --server}
     * @param user the account, as {@code --user}
     * @param token the account's bearer token, as {@code --token} (kept owner-only, never shown)
     */
    public record ServerAccount(ServerUrls urls, String user, String token) {
        /** @throws IllegalArgumentException for a user id the protocol cannot carry or a blank token */
        public ServerAccount {
            Objects.requireNonNull(urls, "urls");
            org.leasesync.remote.HttpSyncRemote.checkProtocolUserId(user);
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("the token of '" + user + "' is empty");
            }
        }

        /** Never the token. */
        @Override
        public String toString() {
            return "ServerAccount[" + urls + ", user=" + user + ", token=(hidden)]";
        }
    }
}
