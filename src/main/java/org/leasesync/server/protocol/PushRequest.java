package org.leasesync.server.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.leasesync.protocol.RecordLimits;

/**
 * A parsed and validated push body (docs/protocol.md §5). Immutable. Every entry is checked against
 * {@link RecordLimits}, and a refusal names the entry ({@code changes[i]}), so that a client sets that
 * one aside and sends the others. The body is parsed with room for a payload deeper than a record may
 * be ({@link RecordLimits#MAX_MESSAGE_DEPTH}), so that such a payload too is refused naming its entry.
 *
 * @param changes the changes in request order
 * @param tree the body as parsed, for fingerprinting
 */
public record PushRequest(List<Change> changes, JsonNode tree) {

    static final int MAX_CHANGES = 1000;

    /** One local edit. {@code payload} is null when {@code deleted}. */
    public record Change(String changeId, String id, long baseVersion, boolean deleted, JsonNode payload) {}

    /**
     * Parses and validates a push body.
     *
     * @throws ApiError 400 naming what is wrong
     */
    public static PushRequest parse(byte[] body) {
        JsonNode tree = parseJson(body);
        if (!tree.isObject()) {
            throw ApiError.badRequest("request body must be a JSON object with a 'changes' array");
        }
        JsonNode changes = tree.get("changes");
        if (changes == null || !changes.isArray()) {
            throw ApiError.badRequest("'changes' must be an array");
        }
        if (changes.size() > MAX_CHANGES) {
            throw ApiError.badRequest("'changes' has " + changes.size() + " entries; at most " + MAX_CHANGES);
        }
        List<Change> out = new ArrayList<>(changes.size());
        for (int i = 0; i < changes.size(); i++) {
            out.add(change(changes.get(i), "changes[" + i + "]"));
        }
        return new PushRequest(List.copyOf(out), tree);
    }

    /**
     * Parses JSON, turning syntax errors into a 400 whose message says where.
     *
     * @throws ApiError 400 for empty or malformed JSON
     */
    public static JsonNode parseJson(byte[] body) {
        if (body.length == 0) {
            throw ApiError.badRequest("request body is empty; expected JSON");
        }
        try {
            return Json.REQUESTS.readTree(body);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null
                    ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr();
            throw ApiError.badRequest("malformed JSON" + where + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiError.badRequest("unreadable JSON: " + e.getMessage());
        }
    }

    private static Change change(JsonNode c, String at) {
        if (!c.isObject()) {
            throw ApiError.badRequest(at + " must be an object");
        }
        String changeId = id(c, "changeId", "change id", at);
        String id = id(c, "id", "record id", at);
        JsonNode base = c.get("baseVersion");
        if (base == null || !base.canConvertToLong() || !base.isIntegralNumber() || base.asLong() < 0) {
            throw ApiError.badRequest(at + ".baseVersion must be an integer >= 0");
        }
        JsonNode deletedNode = c.get("deleted");
        boolean deleted = false;
        if (deletedNode != null && !deletedNode.isNull()) {
            if (!deletedNode.isBoolean()) {
                throw ApiError.badRequest(at + ".deleted must be true or false");
            }
            deleted = deletedNode.booleanValue();
        }
        JsonNode payload = c.get("payload");
        if (!deleted && (payload == null || !payload.isObject())) {
            throw ApiError.badRequest(at + ".payload must be a JSON object (unless deleted is true)");
        }
        if (!deleted) {
            Optional<String> problem = PayloadCheck.problem(payload);
            if (problem.isPresent()) {
                throw ApiError.badRequest(
                        at + ".payload of record '" + RecordLimits.shown(id) + "' is refused: " + problem.get());
            }
        }
        return new Change(changeId, id, base.asLong(), deleted, deleted ? null : payload);
    }

    /** An id field, checked against {@link RecordLimits#idProblem}: a 400 naming the entry. */
    private static String id(JsonNode c, String field, String what, String at) {
        JsonNode n = c.get(field);
        if (n == null || !n.isTextual()) {
            throw ApiError.badRequest(
                    at + "." + field + " must be a string of 1.." + RecordLimits.MAX_ID_CHARS + " characters");
        }
        Optional<String> problem = RecordLimits.idProblem(n.textValue(), what);
        if (problem.isPresent()) {
            throw ApiError.badRequest(at + "." + field + " is refused: " + problem.get());
        }
        return n.textValue();
    }
}
