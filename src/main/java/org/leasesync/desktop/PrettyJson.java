package org.leasesync.desktop;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import org.leasesync.json.JsonMappers;

/** A record's JSON content for people to read: Jackson's default pretty printer. Thread-safe. */
public final class PrettyJson {

    /** Numbers are kept as written ({@code 0.10} stays {@code 0.10}); trailing text makes it "not JSON". */
    private static final ObjectMapper JSON = JsonMappers.CONTENT;

    private static final ObjectWriter PRETTY = JSON.writerWithDefaultPrettyPrinter();

    private PrettyJson() {}

    /** {@code json} indented, one field a line; the text as is when it is not JSON. */
    public static String format(String json) {
        try {
            JsonNode n = JSON.readTree(json);
            return n == null || n.isMissingNode() ? json : PRETTY.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            return json;
        }
    }
}
