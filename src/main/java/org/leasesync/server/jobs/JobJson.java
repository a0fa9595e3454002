package org.leasesync.server.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.leasesync.json.JsonMappers;

/** Job positions as JSON text (checkpoints) and back. Thread-safe. */
final class JobJson {

    static final ObjectMapper MAPPER = JsonMappers.PLAIN;
    /** Longest position text ({@code job_checkpoints.position_json}). */
    static final int MAX_POSITION_CHARS = 2000;

    private JobJson() {}

    /**
     * @throws IllegalStateException if the position cannot be written or is longer than 2,000 characters
     *     (a job's bug, never user input)
     */
    static String write(Object position) {
        try {
            String text = MAPPER.writeValueAsString(position);
            if (text.length() > MAX_POSITION_CHARS) {
                throw new IllegalStateException("job position is " + text.length() + " characters, over "
                        + MAX_POSITION_CHARS + ": " + text.substring(0, 80) + "…");
            }
            return text;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write job position " + position + ": " + e.getOriginalMessage(), e);
        }
    }

    /**
     * @throws IllegalStateException naming the job and the text if the stored position cannot be read
     */
    static <P> P read(String job, String text, Class<P> type) {
        try {
            return MAPPER.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "the checkpoint of job " + job + " holds an unreadable position '" + text + "': "
                            + e.getOriginalMessage(),
                    e);
        }
    }

    /** The stored text as a JSON tree for display, or a text node if it is not JSON. */
    static JsonNode tree(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return MAPPER.getNodeFactory().textNode(text);
        }
    }
}
