package org.leasesync.sync;

import java.nio.charset.StandardCharsets;
import org.leasesync.protocol.RecordLimits;

/**
 * The size of what a push sends, and the protocol's limit on it (docs/protocol.md §1: request
 * bodies over 5 MiB are refused with {@code 413}). A push body is
 * <pre>{"changes":[{"changeId":"…","id":"…","baseVersion":N,"deleted":false,"payload":{…}},…]}</pre>
 * in UTF-8, with each entry's stored payload text written as it is (the protocol client does so,
 * after checking it is a JSON object) and the record id as a JSON string. A test pins these numbers
 * to the bytes the client really sends.
 *
 * <p>Stateless and thread-safe.
 */
public final class PushLimits {

    /** The largest push body the protocol lets a server accept: 5 MiB = 5,242,880 bytes. */
    public static final long MAX_BODY_BYTES = RecordLimits.MAX_PUSH_BODY_BYTES;

    /** {@code {"changes":[} and {@code ]}}. */
    private static final int ENVELOPE_BYTES = "{\"changes\":[]}".length();

    private PushLimits() {}

    /** Bytes of the push body that sends {@code entry} alone. */
    public static long aloneBytes(OutboxEntry entry) {
        return ENVELOPE_BYTES + entryBytes(entry);
    }

    /** Bytes of the push body that sends {@code entries} together (in one batch). */
    public static long batchBytes(Iterable<OutboxEntry> entries) {
        long total = ENVELOPE_BYTES;
        boolean first = true;
        for (OutboxEntry e : entries) {
            total += entryBytes(e) + (first ? 0 : 1); // the comma between entries
            first = false;
        }
        return total;
    }

    /**
     * Bytes one entry adds to a push body (without a separating comma): its JSON object with the
     * change id, record id, base version, deleted flag and payload.
     */
    public static long entryBytes(OutboxEntry e) {
        return "{\"changeId\":,\"id\":,\"baseVersion\":,\"deleted\":,\"payload\":}".length()
                + jsonStringBytes(e.changeId())
                + jsonStringBytes(e.recordId())
                + Long.toString(e.baseVersion()).length()
                + (e.deleted() ? 4 : 5)
                + e.payloadJson().getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Bytes of {@code s} written as a JSON string by the protocol client's JSON library: quotes, a
     * backslash before {@code "} and {@code \}, short escapes for {@code \b \f \n \r \t}, six bytes
     * ({@code \}{@code u00XX}) for the other control characters below U+0020, UTF-8 for the rest (a lone
     * surrogate becomes {@code ?}).
     */
    static long jsonStringBytes(String s) {
        long n = 2;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
                n += 2;
            } else if (c < 0x20) {
                n += 6;
            } else if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n += 1; // a lone surrogate is encoded as '?'
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * Checks that an edit can ever be pushed: that its record id and payload text are within the
     * {@link RecordLimits} (what can be seen without a JSON parser: the id's characters, the payload's
     * UTF-8 size and unpaired surrogates; its nesting depth is checked where it is parsed), and that a
     * push of it alone stays within {@link #MAX_BODY_BYTES}.
     *
     * @throws IllegalArgumentException naming the record and what is wrong with it (with the limit)
     */
    public static void checkFits(OutboxEntry entry) {
        java.util.Optional<String> problem = RecordLimits.idProblem(entry.recordId(), "record id");
        if (problem.isEmpty() && !entry.deleted()) {
            problem = RecordLimits.payloadTextProblem(entry.payloadJson());
        }
        if (problem.isPresent()) {
            throw new IllegalArgumentException("the edit of record '" + RecordLimits.shown(entry.recordId())
                    + "' cannot be synced: " + problem.get());
        }
        long bytes = aloneBytes(entry);
        if (bytes > MAX_BODY_BYTES) {
            throw new IllegalArgumentException(String.format(
                    java.util.Locale.ROOT,
                    "the edit of record '%s' is too large to sync: a push of it alone is %,d bytes, and the sync "
                            + "server accepts at most %,d bytes (5 MiB) per push",
                    entry.recordId(),
                    bytes,
                    MAX_BODY_BYTES));
        }
    }
}
