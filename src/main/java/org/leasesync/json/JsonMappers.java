package org.leasesync.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The shared Jackson mappers, one per kind of JSON. Each is configured here once and never
 * reconfigured by a user (a site that needs another setting takes a {@link ObjectMapper#copy()});
 * so configured, an {@link ObjectMapper} is thread-safe.
 */
public final class JsonMappers {

    /**
     * Jackson's defaults: the server jobs' checkpoints, the chaos journal, the embedded demo's
     * requests — JSON only leasesync itself writes and reads.
     */
    public static final ObjectMapper PLAIN = new ObjectMapper();

    /**
     * Indented output, one field a line: the files a person may open (settings, accounts, the token
     * file) and the command line's JSON output.
     */
    public static final ObjectMapper INDENTED = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * A record's content as the user wrote it: exactly one JSON value (text after it is an error,
     * not ignored) and every number with all its digits ({@link java.math.BigDecimal}), so reading
     * and writing it back changes no digit. The window's data view, its pretty-printing and the
     * conflict diff.
     */
    public static final ObjectMapper CONTENT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private JsonMappers() {}
}
