package org.leasesync.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.leasesync.json.JsonMappers;

/** The CLI's JSON output (Jackson). Thread-safe. */
final class Json {

    private static final ObjectMapper MAPPER = JsonMappers.INDENTED;

    private Json() {}

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }
}
