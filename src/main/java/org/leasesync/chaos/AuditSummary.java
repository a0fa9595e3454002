package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One line about what the server's audit shows after a cluster run (for the progress output and
 * docs/scale-out.md): requests, committed pushes and the changes they applied, replays, and the
 * refusals by error code. Stateless.
 */
final class AuditSummary {

    private AuditSummary() {}

    /** E.g. {@code audit: 2412 requests; 388 pushes committed, 512 changes applied, 41 replays; refused: 503 unavailable=37, ...}. */
    static String of(List<JsonNode> audit) {
        int pushes = 0;
        int applied = 0;
        int replays = 0;
        Map<String, Integer> refused = new TreeMap<>();
        for (JsonNode a : audit) {
            int status = a.path("status").asInt();
            if (status >= 400) {
                refused.merge(status + " " + a.path("code").asText("?"), 1, Integer::sum);
            } else if ("push".equals(a.path("op").asText())) {
                if (a.path("applied").isEmpty()
                        && (!a.path("duplicates").isEmpty()
                                || !a.path("conflicts").isEmpty())) {
                    replays++; // or a push whose every change was a duplicate or a conflict
                } else {
                    pushes++;
                }
                applied += a.path("applied").size();
            }
        }
        StringBuilder b = new StringBuilder("audit: ")
                .append(audit.size())
                .append(" requests; ")
                .append(pushes)
                .append(" pushes committed, ")
                .append(applied)
                .append(" changes applied, ")
                .append(replays)
                .append(" pushes applied nothing (replays, duplicates, conflicts); refused:");
        if (refused.isEmpty()) {
            b.append(" none");
        }
        refused.forEach((code, n) -> b.append(' ').append(code).append('=').append(n));
        return b.toString();
    }
}
