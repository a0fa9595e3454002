package org.leasesync.server.protocol;

/** Protocol header names and value rules (docs/protocol.md §1.1). Stateless. */
public final class ProtocolHeaders {

    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    public static final String FENCING_TOKEN = "Fencing-Token";
    public static final String CLIENT_ID = "Client-Id";
    public static final String SYNC_RUN_ID = "Sync-Run-Id";
    public static final String REPLAYED = "Idempotent-Replayed";
    public static final String RETRY_AFTER = "Retry-After";

    private ProtocolHeaders() {}

    /** True if {@code v} is 1..255 printable ASCII chars not starting or ending with a space. */
    public static boolean isToken(String v) {
        if (v == null || v.isEmpty() || v.length() > 255) {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return v.charAt(0) != ' ' && v.charAt(v.length() - 1) != ' ';
    }

    /** The value if absent or valid; otherwise a 400 naming the header. */
    public static String optionalToken(String name, String value) {
        if (value != null && !isToken(value)) {
            throw ApiError.badRequest(name + " must be 1..255 printable ASCII characters");
        }
        return value;
    }
}
