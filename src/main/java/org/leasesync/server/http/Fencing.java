package org.leasesync.server.http;

import java.util.Objects;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.ProtocolHeaders;

/**
 * The fencing headers of a push or pull (docs/protocol.md §6): {@code Client-Id} names the token
 * sequence, {@code Fencing-Token} is the run's epoch. Immutable.
 */
public record Fencing(String clientId, long token) {

    public Fencing {
        Objects.requireNonNull(clientId, "clientId");
    }

    /**
     * The request's fencing headers, or null if it carries neither.
     *
     * @throws ApiError 400 if only one of the two is present, the token is not a 64-bit integer, or
     *     the client id breaks the header rules
     */
    static Fencing fromHeaders(RequestContext ctx) {
        String token = ctx.header(ProtocolHeaders.FENCING_TOKEN);
        String clientId =
                ProtocolHeaders.optionalToken(ProtocolHeaders.CLIENT_ID, ctx.header(ProtocolHeaders.CLIENT_ID));
        if (token == null && clientId == null) {
            return null;
        }
        if (token == null || clientId == null) {
            throw ApiError.badRequest("Fencing-Token and Client-Id must be sent together");
        }
        try {
            return new Fencing(clientId, Long.parseLong(token.trim()));
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("Fencing-Token must be a 64-bit integer but was '" + token + "'");
        }
    }

    /**
     * 409 {@code stale_fencing_token}; {@code consequence} says what did not happen, {@code highest}
     * is the highest token seen for the key and this client.
     */
    ApiError stale(String consequence, long highest) {
        return ApiError.staleFencingToken(
                "fencing token " + token + " for client '" + clientId + "' is lower than one already seen (" + highest
                        + "); " + consequence,
                highest);
    }
}
