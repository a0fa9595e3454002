package org.leasesync.server.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What one push request did, by change id, as the audit log records it: {@code applied} (applied
 * by this request), {@code duplicates} (reported as already applied) and {@code conflicts}
 * (reported as conflict). Immutable.
 */
public record PushOutcome(List<String> applied, List<String> duplicates, List<String> conflicts) {

    /** Nothing applied, nothing reported. */
    public static final PushOutcome NONE = new PushOutcome(List.of(), List.of(), List.of());

    public PushOutcome {
        applied = List.copyOf(applied);
        duplicates = List.copyOf(duplicates);
        conflicts = List.copyOf(conflicts);
    }

    /**
     * The outcome of a replayed stored response (docs/protocol.md §5.2): the replay applies
     * nothing, so {@code applied} is empty; duplicates and conflicts are those the response reports.
     */
    public static PushOutcome ofReplay(String responseJson) {
        List<String> duplicates = new ArrayList<>();
        List<String> conflicts = new ArrayList<>();
        for (JsonNode r : Json.readTree(responseJson).path("results")) {
            String id = r.path("changeId").asText();
            if ("conflict".equals(r.path("status").asText())) {
                conflicts.add(id);
            } else if (r.path("duplicate").asBoolean(false)) {
                duplicates.add(id);
            }
        }
        return new PushOutcome(List.of(), duplicates, conflicts);
    }
}
