package org.leasesync.remote;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.leasesync.protocol.RecordLimits;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.RemoteRecord;

/**
 * Reads the body of a pull answer (docs/protocol.md, {@code GET .../changes}) with Jackson's
 * streaming parser, without building a tree: each change's fields are read as they come and its
 * payload is kept as the server wrote it (the exact bytes of its JSON value, checked by the parser),
 * so it is neither parsed into nodes nor written out again. Unknown fields are skipped, at any level.
 * A change beyond the record limits ({@link RecordLimits}: its id, or a payload nesting too deep) is
 * left out and named in the page's {@link PullPage#withheld()}, as are those the server itself lists
 * in {@code withheld}: one such record does not stop the rest of the page.
 *
 * <p>The whole page is read before anything is returned: a body that is cut short, is not JSON or
 * lacks a required field gives an error and no page, so nothing of it is applied and the cursor
 * stays where it was. Stateless and thread-safe.
 */
final class PullPageReader {

    private final JsonFactory factory;

    /** @param factory the protocol client's JSON factory (default features: duplicate names are not checked) */
    PullPageReader(JsonFactory factory) {
        this.factory = factory;
    }

    /**
     * Parses one pull answer.
     *
     * @param body the 2xx body, UTF-8 JSON
     * @throws IOException ({@link com.fasterxml.jackson.core.JsonProcessingException}) when the body is
     *     not well-formed JSON, e.g. cut short
     * @throws IllegalArgumentException naming the missing or mistyped field (and the change's index)
     */
    PullPage read(byte[] body) throws IOException {
        try (JsonParser p = factory.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("expected a JSON object");
            }
            List<RemoteRecord> records = null;
            List<String> withheld = new ArrayList<>();
            String nextCursor = null;
            Boolean hasMore = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "changes" -> records = changes(p, body, withheld);
                    case "withheld" -> withheld(p, withheld);
                    case "nextCursor" -> nextCursor = string(p, field, "");
                    case "hasMore" -> hasMore = bool(p, field);
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new IllegalArgumentException("trailing content after the answer");
            }
            if (records == null) {
                throw new IllegalArgumentException("missing 'changes'");
            }
            if (nextCursor == null) {
                throw new IllegalArgumentException("missing 'nextCursor'");
            }
            if (hasMore == null) {
                throw new IllegalArgumentException("missing 'hasMore'");
            }
            return new PullPage(records, nextCursor, hasMore, withheld);
        }
    }

    /** The server's list of records it left out ({@code [{"id":..,"version":..,"reason":..}]}), as texts. */
    private static void withheld(JsonParser p, List<String> out) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            throw new IllegalArgumentException("'withheld' is not an array");
        }
        while (p.nextToken() == JsonToken.START_OBJECT) {
            String id = "?";
            String version = "?";
            String reason = "";
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "id" -> id = p.getValueAsString("?");
                    case "version" -> version = p.getValueAsString("?");
                    case "reason" -> reason = p.getValueAsString("");
                    default -> p.skipChildren();
                }
            }
            out.add("record '" + RecordLimits.shown(id) + "' version " + version + ": " + reason);
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
            throw new IllegalArgumentException("'withheld' holds something other than objects");
        }
    }

    private static List<RemoteRecord> changes(JsonParser p, byte[] body, List<String> withheld) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("'changes' is not an array");
        }
        List<RemoteRecord> out = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            String where = " in change " + out.size();
            if (t != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("change " + out.size() + " is not an object");
            }
            Read read = change(p, body, where);
            RemoteRecord r = read.record();
            Optional<String> problem = RecordLimits.idProblem(r.id(), "record id");
            if (problem.isEmpty() && read.tooDeep()) {
                problem = Optional.of(RecordLimits.TOO_DEEP);
            }
            if (problem.isPresent()) {
                withheld.add(
                        "record '" + RecordLimits.shown(r.id()) + "' version " + r.version() + ": " + problem.get());
            } else {
                out.add(r);
            }
        }
        return out;
    }

    /** A change as read: {@code tooDeep} when its payload nests deeper than a record may. */
    private record Read(RemoteRecord record, boolean tooDeep) {}

    private static Read change(JsonParser p, byte[] body, String where) throws IOException {
        String id = null;
        long version = 0;
        boolean hasVersion = false;
        boolean deleted = false;
        String payload = "{}";
        boolean tooDeep = false;
        String serverTime = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "id" -> id = string(p, field, where);
                case "version" -> {
                    if (value != JsonToken.VALUE_NULL) {
                        version = number(p, field, where);
                        hasVersion = true;
                    }
                }
                case "deleted" -> {
                    deleted = value == JsonToken.VALUE_TRUE; // as before: anything but true is false
                    p.skipChildren();
                }
                case "payload" -> {
                    payload = value == JsonToken.VALUE_NULL ? "{}" : raw(p, body);
                    tooDeep = payload == null;
                }
                case "serverTime" -> serverTime = string(p, field, where);
                default -> p.skipChildren();
            }
        }
        if (id == null) {
            throw new IllegalArgumentException("missing 'id'" + where);
        }
        if (!hasVersion) {
            throw new IllegalArgumentException("missing 'version'" + where);
        }
        if (serverTime == null) {
            throw new IllegalArgumentException("missing 'serverTime'" + where);
        }
        Instant at;
        try {
            at = instant(serverTime);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(
                    "'serverTime' is not an ISO-8601 instant" + where + ": " + serverTime, e);
        }
        return new Read(new RemoteRecord(id, version, deleted, tooDeep ? "{}" : payload, at), tooDeep);
    }

    /**
     * {@link Instant#parse} with a fast path for the form servers write ({@code 2026-11-30T10:00:00Z},
     * optionally with 1..9 fraction digits): {@code Instant.parse} goes through a general formatter and
     * was a quarter of the client's CPU time of a pull. Anything else goes to {@code Instant.parse}.
     *
     * @throws DateTimeException if it is not an ISO-8601 instant
     */
    static Instant instant(String s) {
        int n = s.length();
        if (n < 20
                || n > 30
                || n == 21
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || s.charAt(n - 1) != 'Z'
                || (n > 20 && s.charAt(19) != '.')) {
            return Instant.parse(s);
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        int fraction = n > 20 ? digits(s, 20, n - 1) : 0;
        if (year < 0
                || month < 0
                || day < 0
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59
                || fraction < 0) {
            return Instant.parse(s); // not digits, or a value only the general parser decides on (e.g. 23:59:60)
        }
        for (int i = n; i < 30; i++) { // to nanoseconds: 30 characters hold 9 fraction digits
            fraction *= 10;
        }
        long days = LocalDate.of(year, month, day).toEpochDay(); // checks the date (no 30 February)
        return Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second, fraction);
    }

    /** The decimal number in {@code s[from, to)}, or -1 if anything there is not an ASCII digit. */
    private static int digits(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /**
     * The current value's JSON text exactly as it stands in {@code body}; the parser checks it on the
     * way. Null if it nests deeper than a record may ({@link RecordLimits#MAX_PAYLOAD_DEPTH}).
     */
    private static String raw(JsonParser p, byte[] body) throws IOException {
        long start = p.currentTokenLocation().getByteOffset();
        if (p.currentToken().isStructStart()) {
            // To the value's end token, checking everything in between and how deep it goes.
            int depth = 1;
            int deepest = 1;
            while (depth > 0) {
                JsonToken t = p.nextToken();
                if (t == null) {
                    throw new IllegalArgumentException("the answer ends inside a payload");
                }
                if (t.isStructStart()) {
                    deepest = Math.max(deepest, ++depth);
                } else if (t.isStructEnd()) {
                    depth--;
                }
            }
            if (RecordLimits.depthProblem(deepest).isPresent()) {
                return null;
            }
        } else {
            p.finishToken(); // a string is otherwise read lazily
        }
        long end = p.currentLocation().getByteOffset(); // just after the value's last character
        if (start < 0 || end > body.length || end <= start) {
            throw new IllegalArgumentException(
                    "the answer is not UTF-8 JSON (payload offsets " + start + ".." + end + ")");
        }
        return new String(body, (int) start, (int) (end - start), StandardCharsets.UTF_8);
    }

    private static String string(JsonParser p, String field, String where) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null; // reported as missing
        }
        if (t != JsonToken.VALUE_STRING) {
            p.skipChildren();
            throw new IllegalArgumentException("'" + field + "' is not a string" + where);
        }
        return p.getText();
    }

    private static Boolean bool(JsonParser p, String field) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null; // reported as missing
        }
        if (!t.isBoolean()) {
            p.skipChildren();
            throw new IllegalArgumentException("'" + field + "' is not true or false");
        }
        return t == JsonToken.VALUE_TRUE;
    }

    private static long number(JsonParser p, String field, String where) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw new IllegalArgumentException("'" + field + "' is not a whole number" + where);
        }
        return p.getLongValue();
    }
}
