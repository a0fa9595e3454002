package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Checks a chaos history against leasesync's promises (docs/architecture.md, "Invariants") and counts
 * violations:
 * <ol>
 *   <li><b>overlaps</b> (invariants 1 and 4): on one device, a local write of epoch {@code e} that
 *       <i>began</i> after a grant of a higher epoch of its key had <i>committed</i> (both stamps on
 *       the machine-wide monotonic clock, so the order is certain) yet was committed; two grants of
 *       the same epoch; and on the server, an accepted request whose fencing token is lower than one
 *       the server had already accepted for that user, scope and client id (in commit order);</li>
 *   <li><b>duplicates</b> (invariant 9, idempotency): a change id applied by more than one request
 *       of its user+scope (the server de-duplicates per user+scope, so one change id applied once
 *       for alice and once for bob is two changes, not a duplicate);</li>
 *   <li><b>lost</b> (invariant 9): an edit made on a device that was neither applied on the server
 *       in its user+scope nor is still in that device's outbox;</li>
 *   <li><b>stuck</b> (invariant 3, fail closed but never stuck): a run still recorded as running after
 *       the final drain, or a key whose owner was killed and that no successor held within the
 *       takeover bound ({@link StuckKeys});</li>
 *   <li><b>cross_user</b> (invariant 8): an accepted request whose token belongs to another user than
 *       its path, or a record of one user (server or local) written for another;</li>
 *   <li><b>stolen</b> (invariant 3): a lease taken over from a holder that was neither killed nor
 *       silent for a whole TTL ({@link StolenLeases}).</li>
 * </ol>
 * Each violation comes with the shortest part of the history that shows it: the events of that key
 * (or change id) between the first event involved and the violation. The checks are also callable
 * one by one ({@link #localOverlaps}, {@link #serverFencing}, {@link #duplicates}, {@link #lost}):
 * the cluster harness ({@link ClusterReport}) runs them with the server-side fencing check counted
 * as {@code fencing_violations}. Stateless; thread-safe.
 */
final class Checker {

    private Checker() {}

    static ChaosReport check(Evidence ev, ChaosReport.Counts inputs) {
        List<ChaosReport.Violation> violations = new ArrayList<>();
        localOverlaps(ev, violations);
        serverFencing(ev, "overlaps", violations);
        duplicates(ev, violations);
        lost(ev, violations);
        StuckKeys.check(ev, violations);
        crossUser(ev, violations);
        StolenLeases.check(ev, violations);
        int runs = ev.devices().values().stream()
                .mapToInt(Evidence.Device::runCount)
                .sum();
        return new ChaosReport(inputs.withRuns(runs), violations, StuckKeys.takeoverMillis(ev));
    }

    // ---- overlaps -------------------------------------------------------------------------------

    /** Local overlaps: a write that began after a newer epoch of its key was granted, and two grants of one epoch. */
    static void localOverlaps(Evidence ev, List<ChaosReport.Violation> out) {
        Map<String, List<JsonNode>> grants = new HashMap<>();
        for (JsonNode e : ev.events()) {
            if (type(e, "grant")) {
                grants.computeIfAbsent(deviceKey(e), k -> new ArrayList<>()).add(e);
            }
        }
        for (Map.Entry<String, List<JsonNode>> g : grants.entrySet()) {
            Set<Long> seen = new HashSet<>();
            for (JsonNode grant : g.getValue()) {
                if (!seen.add(grant.path("epoch").asLong())) {
                    out.add(violation(
                            "overlaps",
                            "two grants of epoch " + grant.path("epoch").asLong() + " for " + g.getKey(),
                            ev,
                            e -> deviceKey(e).equals(g.getKey()),
                            grant.path("mono").asLong(),
                            grant));
                }
            }
        }
        for (JsonNode w : ev.events()) {
            if (!type(w, "write")) {
                continue;
            }
            long epoch = w.path("epoch").asLong();
            long began = w.path("began").asLong();
            for (JsonNode grant : grants.getOrDefault(deviceKey(w), List.of())) {
                if (grant.path("epoch").asLong() > epoch && grant.path("mono").asLong() < began) {
                    long lateMs = (began - grant.path("mono").asLong()) / 1_000_000;
                    out.add(violation(
                            "overlaps",
                            "on " + w.path("device").asText() + ", a write ("
                                    + w.path("op").asText()
                                    + ") of " + w.path("key").asText() + " epoch " + epoch + " began " + lateMs
                                    + " ms after epoch " + grant.path("epoch").asLong()
                                    + " was granted, and was committed",
                            ev,
                            e -> deviceKey(e).equals(deviceKey(w))
                                    && epochBetween(
                                            e, epoch, grant.path("epoch").asLong()),
                            firstGrantMono(grants.get(deviceKey(w)), epoch, grant),
                            w));
                    break;
                }
            }
        }
    }

    /**
     * Server-side fencing: an accepted request whose fencing token is lower than one the server had
     * already accepted for the same user, scope and client id, in commit order (audit {@code seq}
     * order). Counted under {@code counter}: {@code overlaps} in the chaos summary,
     * {@code fencing_violations} in the cluster summary.
     */
    static void serverFencing(Evidence ev, String counter, List<ChaosReport.Violation> out) {
        Map<String, Long> highest = new HashMap<>();
        Set<String> completedKeys = new HashSet<>();
        for (JsonNode a : ev.audit()) {
            if (a.path("fencingToken").isNull()
                    || a.path("fencingToken").isMissingNode()
                    || a.path("status").asInt() >= 400) {
                continue;
            }
            String idem = a.path("op").asText().equals("push")
                    ? a.path("idempotencyKey").asText("")
                    : "";
            if (!idem.isEmpty() && !completedKeys.add(a.path("pathUser").asText() + " " + idem)) {
                continue; // a replay of a completed push: answered from storage, no fencing check, nothing applied
            }
            String stream = a.path("pathUser").asText() + "|" + a.path("scope").asText() + " client "
                    + a.path("clientId").asText();
            long token = a.path("fencingToken").asLong();
            Long before = highest.get(stream);
            if (before != null && token < before) {
                out.add(new ChaosReport.Violation(
                        counter,
                        "the server accepted " + a.path("op").asText() + " #"
                                + a.path("seq").asLong() + " of " + stream + " with fencing token " + token
                                + " after it had accepted token "
                                + before,
                        auditHistory(
                                ev,
                                x -> (x.path("pathUser").asText() + "|"
                                                + x.path("scope").asText() + " client "
                                                + x.path("clientId").asText())
                                        .equals(stream),
                                a.path("seq").asLong())));
            }
            highest.merge(stream, token, Math::max);
        }
    }

    private static long firstGrantMono(List<JsonNode> grants, long epoch, JsonNode fallback) {
        return grants.stream()
                .filter(g -> g.path("epoch").asLong() == epoch)
                .mapToLong(g -> g.path("mono").asLong())
                .findFirst()
                .orElse(fallback.path("mono").asLong());
    }

    private static boolean epochBetween(JsonNode e, long low, long high) {
        long ep = e.path("epoch").asLong(-1);
        return ep < 0 || ep == 0 || (ep >= low && ep <= high);
    }

    // ---- duplicates -----------------------------------------------------------------------------

    /** A change id applied by more than one request of its user+scope. */
    static void duplicates(Evidence ev, List<ChaosReport.Violation> out) {
        Map<String, List<JsonNode>> appliedBy = new HashMap<>();
        for (JsonNode a : ev.audit()) {
            for (JsonNode id : a.path("applied")) {
                String where =
                        a.path("pathUser").asText() + "|" + a.path("scope").asText();
                appliedBy
                        .computeIfAbsent("change " + id.asText() + " of " + where, k -> new ArrayList<>())
                        .add(a);
            }
        }
        appliedBy.forEach((change, entries) -> {
            if (entries.size() > 1) {
                out.add(new ChaosReport.Violation(
                        "duplicates", change + " was applied " + entries.size() + " times", lines(entries)));
            }
        });
    }

    // ---- lost -----------------------------------------------------------------------------------

    /**
     * An edit journaled on a device that was neither applied on the server (in its user+scope:
     * the same change id applied for another user or scope is another change) nor is still in that
     * device's outbox of its user+scope.
     */
    static void lost(Evidence ev, List<ChaosReport.Violation> out) {
        Set<String> applied = new HashSet<>(); // "user|scope changeId"
        for (JsonNode a : ev.audit()) {
            String where = a.path("pathUser").asText() + "|" + a.path("scope").asText() + " ";
            a.path("applied").forEach(id -> applied.add(where + id.asText()));
            a.path("duplicates").forEach(id -> applied.add(where + id.asText()));
        }
        for (JsonNode e : ev.events()) {
            if (!type(e, "edit")) {
                continue;
            }
            String changeId = e.path("changeId").asText();
            String key = e.path("key").asText();
            Evidence.Device device = ev.devices().get(e.path("device").asText());
            boolean pending = device != null
                    && device.outbox().getOrDefault(key, Set.of()).contains(changeId);
            if (!applied.contains(key + " " + changeId) && !pending) {
                out.add(violation(
                        "lost",
                        "edit " + changeId + " of " + e.path("key").asText() + " (record "
                                + e.path("record").asText() + ") on "
                                + e.path("device").asText()
                                + " was never applied and is no longer in the outbox",
                        ev,
                        x -> changeId.equals(x.path("changeId").asText())
                                || deviceKey(x).equals(deviceKey(e)),
                        e.path("mono").asLong(),
                        null));
            }
        }
    }

    // ---- cross-user -----------------------------------------------------------------------------

    private static void crossUser(Evidence ev, List<ChaosReport.Violation> out) {
        for (JsonNode a : ev.audit()) {
            if (a.path("status").asInt() < 400
                    && !a.path("authUser").asText().equals(a.path("pathUser").asText())) {
                out.add(new ChaosReport.Violation(
                        "cross_user",
                        "the server accepted a request of " + a.path("authUser").asText() + " on "
                                + a.path("pathUser").asText() + "'s path",
                        lines(List.of(a))));
            }
        }
        ev.serverRecords().forEach((key, records) -> {
            String user = key.substring(0, key.indexOf('|'));
            for (JsonNode r : records) {
                String owner = r.path("payload").path("owner").asText(user);
                if (!owner.equals(user)) {
                    out.add(new ChaosReport.Violation(
                            "cross_user",
                            "the server holds record " + r.path("id").asText() + " of " + key + " written for " + owner,
                            lines(List.of(r))));
                }
            }
        });
        ev.devices()
                .forEach((name, d) -> d.localRecords().forEach((key, payloads) -> {
                    String user = key.substring(0, key.indexOf('|'));
                    for (String p : payloads) {
                        String owner = owner(p, user);
                        if (!owner.equals(user)) {
                            out.add(new ChaosReport.Violation(
                                    "cross_user",
                                    "device " + name + " holds a record of " + key + " written for " + owner,
                                    List.of(p)));
                        }
                    }
                }));
    }

    private static String owner(String payloadJson, String fallback) {
        if (payloadJson == null) {
            return fallback;
        }
        try {
            return Journal.JSON.readTree(payloadJson).path("owner").asText(fallback);
        } catch (IOException e) {
            return fallback;
        }
    }

    // ---- histories ------------------------------------------------------------------------------

    private static final int MAX_HISTORY = 60;

    static ChaosReport.Violation violation(
            String counter, String what, Evidence ev, Predicate<JsonNode> relevant, long fromMono, JsonNode last) {
        long toMono = last == null ? Long.MAX_VALUE : last.path("mono").asLong();
        List<JsonNode> events = new ArrayList<>();
        for (JsonNode e : ev.events()) {
            long m = e.path("mono").asLong();
            if (m >= fromMono
                    && m <= toMono
                    && (relevant.test(e) || type(e, "kill") || type(e, "server-kill") || type(e, "partition"))) {
                events.add(e);
            }
        }
        if (events.size() > MAX_HISTORY) {
            List<JsonNode> cut = new ArrayList<>(events.subList(0, MAX_HISTORY / 2));
            cut.addAll(events.subList(events.size() - MAX_HISTORY / 2, events.size()));
            events = cut;
        }
        long origin =
                ev.events().isEmpty() ? 0 : ev.events().get(0).path("mono").asLong();
        List<String> lines = new ArrayList<>();
        for (JsonNode e : events) {
            lines.add(String.format("%+10.3fs %s", (e.path("mono").asLong() - origin) / 1e9, e));
        }
        return new ChaosReport.Violation(counter, what, lines);
    }

    private static List<String> auditHistory(Evidence ev, Predicate<JsonNode> relevant, long toSeq) {
        List<JsonNode> entries = ev.audit().stream()
                .filter(relevant)
                .filter(a -> a.path("seq").asLong() <= toSeq)
                .sorted(Comparator.comparingLong(a -> a.path("seq").asLong()))
                .toList();
        return lines(entries.subList(Math.max(0, entries.size() - 12), entries.size()));
    }

    private static List<String> lines(List<JsonNode> nodes) {
        return nodes.stream().map(JsonNode::toString).toList();
    }

    static boolean type(JsonNode e, String type) {
        return type.equals(e.path("type").asText());
    }

    static String deviceKey(JsonNode e) {
        return e.path("device").asText() + "|" + e.path("key").asText();
    }
}
