package org.leasesync.server.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import org.leasesync.protocol.RecordLimits;

/**
 * A payload checked against {@link RecordLimits}: its depth, the strings in it and its size as
 * compact JSON; and a stored record read back for an answer, which an older version may have stored
 * beyond the limits. Stateless and thread-safe.
 */
public final class PayloadCheck {

    /** A stored record as an answer may carry it: its payload, or why it is withheld. */
    public record Stored(JsonNode payload, Optional<String> withheld) {}

    private PayloadCheck() {}

    /**
     * What is wrong with {@code payload}, a parsed JSON object; empty if it is within the limits. The
     * strings are checked in its compact text, where a JSON writer keeps an unpaired surrogate as it is.
     */
    public static Optional<String> problem(JsonNode payload) {
        Deque<Map.Entry<JsonNode, Integer>> todo = new ArrayDeque<>();
        todo.push(Map.entry(payload, 1));
        while (!todo.isEmpty()) {
            Map.Entry<JsonNode, Integer> next = todo.pop();
            int depth = next.getValue();
            if (next.getKey().isContainerNode()) {
                Optional<String> deep = RecordLimits.depthProblem(depth);
                if (deep.isPresent()) {
                    return deep;
                }
                next.getKey().forEach(child -> todo.push(Map.entry(child, depth + 1)));
            }
        }
        return RecordLimits.payloadTextProblem(Json.text(payload));
    }

    /**
     * A stored record's id and payload text, read for an answer. A record beyond the limits — its
     * text nests too deep to be parsed, or it breaks a limit once parsed — is withheld with the reason,
     * so that one such record does not make every answer that would carry it fail.
     *
     * @param payloadJson the stored text; null for a tombstone
     */
    public static Stored stored(String id, String payloadJson) {
        Optional<String> idProblem = RecordLimits.idProblem(id, "record id");
        if (idProblem.isPresent()) {
            return new Stored(null, idProblem);
        }
        if (payloadJson == null) {
            return new Stored(null, Optional.empty());
        }
        JsonNode n;
        try {
            n = Json.MAPPER.readTree(payloadJson);
        } catch (JsonProcessingException e) {
            return new Stored(
                    null,
                    Optional.of(
                            "its stored content cannot be read within the limits (" + e.getOriginalMessage() + ")"));
        }
        if (n == null || !n.isObject()) {
            return new Stored(null, Optional.of("its stored content is not a JSON object"));
        }
        Optional<String> problem = problem(n);
        return problem.isPresent() ? new Stored(null, problem) : new Stored(n, Optional.empty());
    }
}
