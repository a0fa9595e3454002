package org.leasesync.remote;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import org.leasesync.protocol.RecordLimits;

/**
 * A record's payload checked against {@link RecordLimits} on the client, where a person makes an
 * edit (the command line's {@code edit}, the window's record editor) and where a push body is built
 * from stored edits: one JSON object, nesting at most {@value RecordLimits#MAX_PAYLOAD_DEPTH} levels
 * (Jackson's {@code maxNestingDepth}), at most {@value RecordLimits#MAX_PAYLOAD_BYTES} bytes as compact
 * UTF-8 JSON, no unpaired surrogate. Stateless and thread-safe.
 */
public final class PayloadJson {

    /**
     * The payload parser: one JSON value and nothing after it, decimals kept exactly, the record
     * limits as Jackson's stream constraints (a longer document is refused once compacted). Its own
     * mapper, not {@code JsonMappers.CONTENT}: the payload depth limit is a record's, not a message's.
     */
    private static final ObjectMapper STRICT = new ObjectMapper(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(RecordLimits.MAX_PAYLOAD_DEPTH)
                            .maxStringLength(RecordLimits.MAX_PAYLOAD_BYTES)
                            .build())
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private PayloadJson() {}

    /**
     * A person's payload text as the compact JSON object that is saved and pushed.
     *
     * @param what where the text came from, for the message (e.g. {@code "--payload"})
     * @throws IllegalArgumentException naming {@code what} and what is wrong: not JSON (with line and
     *     column), not an object, or beyond a record limit (with the limit)
     */
    public static String normalize(String text, String what) {
        JsonNode n;
        try {
            n = STRICT.readTree(text);
        } catch (StreamConstraintsException e) {
            throw new IllegalArgumentException(what + " is refused: " + constraint(e));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(what + " is not valid JSON: " + e.getOriginalMessage()
                    + (e.getLocation() == null
                            ? ""
                            : " (line " + e.getLocation().getLineNr() + ", column "
                                    + e.getLocation().getColumnNr() + ")"));
        }
        if (n == null || !n.isObject()) {
            String shown = text.length() > 80 ? text.substring(0, 80) + "…" : text;
            throw new IllegalArgumentException(what + " must be a JSON object like {\"title\":\"x\"}, got: " + shown);
        }
        String compact = n.toString();
        Optional<String> problem = RecordLimits.payloadTextProblem(compact);
        if (problem.isPresent()) {
            throw new IllegalArgumentException(what + " is refused: " + problem.get());
        }
        return compact;
    }

    /**
     * What keeps a compact payload from being saved or pushed; empty if nothing does. Saved payloads
     * are compact JSON objects, but one saved by an older version may break a limit.
     */
    public static Optional<String> problem(String savedJson) {
        Optional<String> text = RecordLimits.payloadTextProblem(savedJson);
        if (text.isPresent()) {
            return text;
        }
        try {
            JsonNode n = STRICT.readTree(savedJson);
            return n != null && n.isObject() ? Optional.empty() : Optional.of("its saved content is not a JSON object");
        } catch (StreamConstraintsException e) {
            return Optional.of(constraint(e));
        } catch (JsonProcessingException e) {
            return Optional.of("its saved content is not valid JSON ("
                    + e.getOriginalMessage().lines().findFirst().orElse("") + ")");
        }
    }

    private static String constraint(StreamConstraintsException e) {
        String m = e.getOriginalMessage();
        if (m != null && m.contains("nesting depth")) {
            return RecordLimits.TOO_DEEP;
        }
        if (m != null && m.contains("String value length")) {
            return String.format(
                    java.util.Locale.ROOT,
                    "its content has a string longer than %,d characters; a record"
                            + " may have at most %,d bytes (5 MiB less 4 KiB)",
                    RecordLimits.MAX_PAYLOAD_BYTES,
                    RecordLimits.MAX_PAYLOAD_BYTES);
        }
        return "its content breaks a limit of the JSON parser (" + m + ")";
    }
}
