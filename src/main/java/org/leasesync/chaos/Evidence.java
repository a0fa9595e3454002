package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the checker reads after a chaos run: the merged journals, the server's request audit,
 * each device's local state, and the server's final records.
 *
 * @param events every journal event, each with a {@code device} field, in {@code mono} order
 * @param audit the server's request audit ({@code GET /v1/admin/audit}), in {@code seq} order
 * @param devices local state per device (data directory), by device name
 * @param serverRecords the server's final records (pull JSON objects) by {@code user|scope}
 * @param leaseTtl the agents' lease TTL
 * @param takeoverBound how long after a kill a successor must hold the dead owner's key
 */
record Evidence(
        List<JsonNode> events,
        List<JsonNode> audit,
        Map<String, Device> devices,
        Map<String, List<JsonNode>> serverRecords,
        Duration leaseTtl,
        Duration takeoverBound) {

    Evidence {
        events = List.copyOf(events);
        audit = List.copyOf(audit);
        devices = Map.copyOf(devices);
        serverRecords = Map.copyOf(serverRecords);
    }

    /**
     * One device's local database after the run.
     *
     * @param clientId the device's client id (what the server fences by)
     * @param outbox change ids still in the outbox (pending or in conflict), by {@code user|scope}:
     *     change ids are unique per user+scope only, as the server treats them
     * @param runCount runs recorded
     * @param unfinishedRuns run ids still recorded as running
     * @param localRecords local record payloads by {@code user|scope}
     */
    record Device(
            String clientId,
            Map<String, Set<String>> outbox,
            int runCount,
            List<String> unfinishedRuns,
            Map<String, List<String>> localRecords) {

        Device {
            Map<String, Set<String>> copy = new java.util.HashMap<>();
            outbox.forEach((key, ids) -> copy.put(key, Set.copyOf(ids)));
            outbox = Map.copyOf(copy);
            unfinishedRuns = List.copyOf(unfinishedRuns);
            localRecords = Map.copyOf(localRecords);
        }
    }
}
