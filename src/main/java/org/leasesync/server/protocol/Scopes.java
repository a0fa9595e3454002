package org.leasesync.server.protocol;

import java.util.List;

/** The protocol's scopes. The server keeps its own list: it does not depend on the client. */
public final class Scopes {

    public static final List<String> ALL = List.of("course_sync", "message_sync", "backup");

    private Scopes() {}

    /** The scope if known; otherwise a 404 {@code unknown_scope}. */
    public static String require(String scope) {
        if (!ALL.contains(scope)) {
            throw new ApiError(
                    404, "unknown_scope", "unknown scope '" + scope + "'; known scopes: " + String.join(", ", ALL));
        }
        return scope;
    }
}
