package org.leasesync.server.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.leasesync.protocol.RecordLimits;

/**
 * The server's JSON mappers and request fingerprinting. Thread-safe.
 *
 * <p>Its own mappers, not {@code org.leasesync.json}'s: every one bounds what it parses by the
 * protocol's {@link RecordLimits} (requests come from untrusted clients), and this package imports
 * nothing of leasesync but those limits.
 */
public final class Json {

    /**
     * Reads stored JSON and writes answers. Its parser allows what {@link RecordLimits} allows a
     * message: {@value RecordLimits#MAX_MESSAGE_DEPTH} levels and strings no longer than a payload.
     */
    static final ObjectMapper MAPPER = mapper(Long.MAX_VALUE)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /** Parses request bodies: as {@link #MAPPER}, and no body longer than a push may be. */
    static final ObjectMapper REQUESTS = mapper(RecordLimits.MAX_PUSH_BODY_BYTES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static final ObjectMapper CANONICAL = mapper(Long.MAX_VALUE)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private Json() {}

    private static ObjectMapper mapper(long maxDocumentBytes) {
        return new ObjectMapper(JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(RecordLimits.MAX_MESSAGE_DEPTH)
                        .maxStringLength(RecordLimits.MAX_PAYLOAD_BYTES)
                        .maxDocumentLength(maxDocumentBytes)
                        .build())
                .build());
    }

    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + value.getClass(), e);
        }
    }

    public static String text(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise JSON node", e);
        }
    }

    public static JsonNode readTree(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is unreadable", e);
        }
    }

    /** JSON with object members sorted by name and no whitespace. */
    public static String canonical(JsonNode node) {
        try {
            Object plain = CANONICAL.convertValue(node, Object.class);
            return CANONICAL.writeValueAsString(plain);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot canonicalise JSON", e);
        }
    }

    /** Lower-case hex SHA-256 of the UTF-8 bytes of {@code text}. */
    public static String sha256(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
