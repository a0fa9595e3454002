package org.leasesync.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import okhttp3.Response;
import org.leasesync.sync.RemoteException;

/** Turns a non-2xx answer into a {@link RemoteException} of kind HTTP. Stateless. */
final class HttpErrors {

    private HttpErrors() {}

    /**
     * @param text the response body, already read
     * @param what the operation, for the technical message (e.g. {@code pull alice|course_sync})
     * @param clock the wall clock an HTTP-date {@code Retry-After} is read against
     */
    static RemoteException of(ObjectMapper mapper, Response resp, String text, String what, Clock clock) {
        String code = "";
        String reason = "";
        long highestToken = -1;
        String message = resp.message();
        try {
            JsonNode err = mapper.readTree(text);
            if (err != null && err.isObject()) {
                code = err.path("code").asText("");
                reason = err.path("reason").asText("");
                JsonNode highest = err.path("highestToken");
                highestToken = highest.canConvertToLong() && highest.isIntegralNumber() ? highest.asLong() : -1;
                message = err.path("message").asText(message);
            }
        } catch (IOException | RuntimeException ignored) {
            // not our error format: keep the status line
        }
        long retryAfter = retryAfterMillis(resp.header("Retry-After"), resp.header("Date"), clock);
        String plain = switch (resp.code()) {
            case 401 -> "signed out: the sync server no longer accepts this session";
            case 403 -> "the sync server refused access for this account";
            case 429 -> "the sync server is busy";
            case 503 -> "the sync server is unavailable";
            default -> resp.code() >= 500 ? "the sync server failed" : "the sync server refused the request";
        };
        return new RemoteException(
                RemoteException.Kind.HTTP,
                resp.code(),
                code,
                reason,
                retryAfter,
                plain + " (HTTP " + resp.code() + ")",
                plain + " (HTTP " + resp.code() + (code.isEmpty() ? "" : " " + code) + " on " + what
                        + (message == null || message.isBlank() ? "" : ": " + message) + ")",
                message == null ? "" : message,
                highestToken,
                null);
    }

    /** The longest wait a {@code Retry-After} is taken for; a longer one is cut to this. */
    static final Duration LONGEST_RETRY_AFTER = Duration.ofHours(24);

    /**
     * A {@code Retry-After} value as a wait from now (RFC 9110 §10.2.3): either delta-seconds
     * ({@code 120}) or an HTTP-date ({@code Wed, 21 Oct 2026 07:28:00 GMT}, read with
     * {@link DateTimeFormatter#RFC_1123_DATE_TIME} against {@code clock}; a date in the past is a wait
     * of 0). At most {@link #LONGEST_RETRY_AFTER}, so a wrong date cannot stop a key for good.
     *
     * @param header the header's value, or null when absent
     * @return the wait in milliseconds, or -1 when absent or unreadable (then no wait is imposed)
     */
    static long retryAfterMillis(String header, Clock clock) {
        return retryAfterMillis(header, null, clock);
    }

    /**
     * As {@link #retryAfterMillis(String, Clock)}, but an HTTP-date is read against the response's own
     * {@code Date} header when it has a readable one: both are the server's clock, so a client whose
     * wall clock is off (hours behind after a bad NTP step, say) still waits what the server meant
     * instead of hours or not at all. Without a readable {@code Date}, against {@code clock}.
     *
     * @param header the {@code Retry-After} value, or null when absent
     * @param date the response's {@code Date} value, or null when absent
     * @return the wait in milliseconds, or -1 when {@code Retry-After} is absent or unreadable
     */
    static long retryAfterMillis(String header, String date, Clock clock) {
        if (header == null || header.isBlank()) {
            return -1;
        }
        String value = header.trim();
        long millis;
        if (value.chars().allMatch(Character::isDigit)) {
            try {
                millis = Math.multiplyExact(Long.parseLong(value), 1000L);
            } catch (ArithmeticException | NumberFormatException e) {
                millis = Long.MAX_VALUE; // more digits than a long: far too long, cut below
            }
        } else {
            try {
                ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
                millis = Math.max(
                        0,
                        Duration.between(serverNow(date, clock), at.toInstant()).toMillis());
            } catch (DateTimeException e) {
                return -1;
            }
        }
        return Math.min(millis, LONGEST_RETRY_AFTER.toMillis());
    }

    /** The server's time of the response from its {@code Date} header, else this machine's {@code clock}. */
    private static java.time.Instant serverNow(String date, Clock clock) {
        if (date != null && !date.isBlank()) {
            try {
                return ZonedDateTime.parse(date.trim(), DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
            } catch (DateTimeException e) {
                // unreadable: this machine's clock is the best there is
            }
        }
        return clock.instant();
    }
}
