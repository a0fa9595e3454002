package org.leasesync.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * What a record of sync protocol v1 may be (docs/protocol.md §1.1, "Record limits"): the one
 * definition the client's edit paths, the push body it builds, the server's request parsing and
 * store, and every answer the server builds from stored records check against.
 *
 * <ul>
 *   <li><b>Ids</b> (record ids, the change ids of push entries): 1..{@value #MAX_ID_CHARS} UTF-16
 *       characters, no control character (U+0000..U+001F, U+007F..U+009F: PostgreSQL refuses U+0000 in
 *       any text column), no leading or trailing white space, no unpaired surrogate (it has no UTF-8
 *       form: a PostgreSQL text column would keep {@code ?} instead, and a UTF-8 JSON writer refuses it).</li>
 *   <li><b>Payloads</b>: one JSON object of at most {@value #MAX_PAYLOAD_BYTES} bytes as compact UTF-8
 *       JSON, nesting at most {@value #MAX_PAYLOAD_DEPTH} levels (the payload object itself is level 1),
 *       no unpaired surrogate in any string or member name. U+0000 in a string is allowed: JSON writes
 *       it as the escape {@code \u0000}, which both stores keep as plain text.</li>
 *   <li><b>Messages</b>: a parser of any protocol message allows {@value #MAX_MESSAGE_DEPTH} levels, so
 *       that a payload within the limits fits inside the deepest envelope ({@value #MAX_ENVELOPE_DEPTH}
 *       levels) with room to spare, and a server can read a deeper payload far enough to refuse it
 *       naming its entry instead of refusing the whole request.</li>
 * </ul>
 * A payload within the limits always fits in a push of it alone ({@value #MAX_PUSH_BODY_BYTES} bytes):
 * the largest envelope of one entry (both ids at their longest) is under
 * {@value #MAX_PUSH_BODY_BYTES} − {@value #MAX_PAYLOAD_BYTES} bytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class RecordLimits {

    /** The largest push body a server accepts (413 above it): 5 MiB. */
    public static final int MAX_PUSH_BODY_BYTES = 5 * 1024 * 1024;

    /** The largest payload, as compact UTF-8 JSON: 5 MiB − 4 KiB, which leaves room for one entry's envelope. */
    public static final int MAX_PAYLOAD_BYTES = MAX_PUSH_BODY_BYTES - 4 * 1024;

    /** The deepest a payload may nest; the payload object is level 1. */
    public static final int MAX_PAYLOAD_DEPTH = 256;

    /**
     * The deepest level at which a protocol message holds a payload: a push-status answer's
     * {@code response.results[i].serverPayload} is at level 4 (object, object, array, object).
     */
    public static final int MAX_ENVELOPE_DEPTH = 4;

    /** The nesting every parser of a protocol message allows (Jackson's {@code maxNestingDepth}). */
    public static final int MAX_MESSAGE_DEPTH = 1000;

    /** The longest id, in UTF-16 characters (the stores' columns are 255 characters wide). */
    public static final int MAX_ID_CHARS = 255;

    static {
        if (MAX_PAYLOAD_DEPTH + MAX_ENVELOPE_DEPTH > MAX_MESSAGE_DEPTH) {
            throw new AssertionError("a payload at its deepest must fit in every message");
        }
    }

    private RecordLimits() {}

    /**
     * What is wrong with an id, for a message that names it (e.g. "record id 'x' has a control
     * character at index 3"); empty if it is a valid id.
     *
     * @param what what the id is, e.g. {@code "record id"}
     */
    public static Optional<String> idProblem(String id, String what) {
        if (id == null || id.isEmpty()) {
            return Optional.of(what + " is empty; it must be 1.." + MAX_ID_CHARS + " characters");
        }
        String shown = shown(id);
        if (id.length() > MAX_ID_CHARS) {
            return Optional.of(what + " '" + shown + "' is " + id.length() + " characters; at most " + MAX_ID_CHARS);
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return Optional.of(String.format(
                        Locale.ROOT,
                        "%s '%s' has a control character (U+%04X) at index %d",
                        what,
                        shown,
                        (int) id.charAt(i),
                        i));
            }
        }
        if (!id.equals(id.strip())) {
            return Optional.of(what + " '" + shown + "' begins or ends with white space");
        }
        int lone = unpairedSurrogate(id);
        if (lone >= 0) {
            return Optional.of(what + " '" + shown + "' has an unpaired surrogate at index " + lone);
        }
        return Optional.empty();
    }

    /**
     * What is wrong with a payload's compact JSON text that can be seen without parsing it: its
     * UTF-8 size, or an unpaired surrogate in it (the text a JSON writer makes keeps such a character
     * as it is). The nesting depth needs a JSON parser: see {@link #depthProblem}.
     *
     * @return the problem, empty if none is seen
     */
    public static Optional<String> payloadTextProblem(String json) {
        int lone = unpairedSurrogate(json);
        if (lone >= 0) {
            return Optional.of("it has an unpaired surrogate (a character with no UTF-8 form) at index " + lone);
        }
        long bytes = utf8Bytes(json);
        if (bytes > MAX_PAYLOAD_BYTES) {
            return Optional.of(String.format(
                    Locale.ROOT,
                    "its content is %,d bytes; a record may have at most %,d" + " bytes (5 MiB less 4 KiB)",
                    bytes,
                    MAX_PAYLOAD_BYTES));
        }
        return Optional.empty();
    }

    /** The problem with a payload that nests {@code depth} levels, empty if that is allowed. */
    public static Optional<String> depthProblem(int depth) {
        return depth <= MAX_PAYLOAD_DEPTH ? Optional.empty() : Optional.of(TOO_DEEP);
    }

    /** Why a payload nesting more than {@link #MAX_PAYLOAD_DEPTH} levels is refused. */
    public static final String TOO_DEEP = "its content nests more than " + MAX_PAYLOAD_DEPTH
            + " levels deep; a record may nest at most " + MAX_PAYLOAD_DEPTH;

    /** The index of the first unpaired surrogate in {@code s}, or -1. */
    public static int unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** The UTF-8 size of {@code s}, which has no unpaired surrogate. */
    public static long utf8Bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** {@code id} fit for a message: at most 80 characters, control characters and lone surrogates as {@code ?}. */
    public static String shown(String id) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < id.length() && b.length() < 80; i++) {
            char c = id.charAt(i);
            boolean paired =
                    Character.isHighSurrogate(c) && i + 1 < id.length() && Character.isLowSurrogate(id.charAt(i + 1));
            if (paired) {
                b.append(c).append(id.charAt(++i));
            } else {
                b.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '?' : c);
            }
        }
        return id.length() > b.length() ? b + "…" : b.toString();
    }
}
