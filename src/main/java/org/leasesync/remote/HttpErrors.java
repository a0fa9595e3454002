package org.leasesync.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import okhttp3.Response;
import org.leasesync.sync.RemoteException;

/** Turns a non-2xx answer into a {@link RemoteException} of kind HTTP. Stateless. */
final class HttpErrors {

    private HttpErrors() {
    }

    /**
     * @param text the response body, already read
     * @param what the operation, for the technical message (e.g. {@code pull alice|course_sync})
     */
    static RemoteException of(ObjectMapper mapper, Response resp, String text, String what) {
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
        long retryAfter = -1;
        String ra = resp.header("Retry-After");
        if (ra != null) {
            try {
                retryAfter = Math.max(0, Long.parseLong(ra.trim())) * 1000;
            } catch (NumberFormatException ignored) {
                retryAfter = -1;
            }
        }
        String plain = switch (resp.code()) {
            case 401 -> "signed out: the sync server no longer accepts this session";
            case 403 -> "the sync server refused access for this account";
            case 429 -> "the sync server is busy";
            case 503 -> "the sync server is unavailable";
            default -> resp.code() >= 500 ? "the sync server failed" : "the sync server refused the request";
        };
        return new RemoteException(RemoteException.Kind.HTTP, resp.code(), code, reason, retryAfter,
                plain + " (HTTP " + resp.code() + ")",
                plain + " (HTTP " + resp.code() + (code.isEmpty() ? "" : " " + code) + " on " + what
                        + (message == null || message.isBlank() ? "" : ": " + message) + ")",
                message == null ? "" : message, highestToken, null);
    }
}
