package org.leasesync.server;

/** Protocol header names and value rules (docs/protocol.md §1.1). Stateless. */
final class ProtocolHeaders {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String FENCING_TOKEN = "Fencing-Token";
    static final String CLIENT_ID = "Client-Id";
    static final String SYNC_RUN_ID = "Sync-Run-Id";
    static final String REPLAYED = "Idempotent-Replayed";
    static final String RETRY_AFTER = "Retry-After";

    private ProtocolHeaders() {
    }

    /** True if {@code v} is 1..255 printable ASCII chars not starting or ending with a space. */
    static boolean isToken(String v) {
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
    static String optionalToken(String name, String value) {
        if (value != null && !isToken(value)) {
            throw ApiError.badRequest(name + " must be 1..255 printable ASCII characters");
        }
        return value;
    }
}
