package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.leasesync.lease.OwnerId;

/**
 * The {@code stolen} counter (invariant 3, time: docs/architecture.md): a lease must never be
 * taken from a
 * live, heart-beating holder. A takeover (a {@code grant} event with {@code tookOverEpoch}) is legal
 * only if the holder's process had been killed before it ({@code kill} event, {@code sent} stamp;
 * for a process that exited on its own, {@code agent-exit}, its last journaled event), or if it came at least one TTL after the holder's last heartbeat (its grant or a successful
 * renewal) <i>began</i>: an observer must see the same heartbeat for a TTL after reading it, and it
 * can read it only after that write committed. Both stamps are on the machine-wide monotonic clock
 * (faked wall clocks and {@code btime} shifts leave it alone), so a violation is certain, never a
 * guess. A wall-clock step that made a live holder look dead (a takeover a third of a TTL after its
 * last renewal) shows here, even though fencing keeps its writes out of the data. A process's own
 * orphan (taken back by the same owner) is not a takeover. Stateless.
 */
final class StolenLeases {

    private StolenLeases() {}

    static void check(Evidence ev, List<ChaosReport.Violation> out) {
        long ttl = ev.leaseTtl().toNanos();
        Map<String, List<Long>> beats = new HashMap<>(); // device|key#epoch -> began of each heartbeat write
        Map<Long, Long> killSent = new HashMap<>(); // pid -> first SIGKILL sent (or last sign of life)
        Map<Long, Long> lastEvent = new HashMap<>(); // pid -> its last journaled event
        for (JsonNode e : ev.events()) {
            lastEvent.merge(e.path("pid").asLong(), e.path("mono").asLong(), Math::max);
        }
        for (JsonNode e : ev.events()) {
            if (Checker.type(e, "agent-exit")) {
                // exited on its own: dead at some moment after its last journaled event
                long pid = e.path("victim").asLong();
                killSent.merge(pid, lastEvent.getOrDefault(pid, e.path("mono").asLong()), Math::min);
            }
            if ((Checker.type(e, "grant") || Checker.type(e, "renew")) && e.has("began")) {
                beats.computeIfAbsent(beatKey(e, e.path("epoch").asLong()), k -> new java.util.ArrayList<>())
                        .add(e.path("began").asLong());
            } else if (Checker.type(e, "kill")) {
                killSent.merge(
                        e.path("victim").asLong(),
                        e.path("sent").asLong(e.path("mono").asLong()),
                        Math::min);
            }
        }
        for (JsonNode g : ev.events()) {
            if (!Checker.type(g, "grant") || !g.has("tookOverEpoch")) {
                continue;
            }
            String holder = g.path("tookOverOwner").asText();
            if (holder.equals(g.path("owner").asText())) {
                continue; // its own orphan
            }
            long at = g.path("mono").asLong();
            long epoch = g.path("tookOverEpoch").asLong();
            long lastBeat = Long.MIN_VALUE;
            for (long b : beats.getOrDefault(beatKey(g, epoch), List.of())) {
                if (b < at) {
                    lastBeat = Math.max(lastBeat, b);
                }
            }
            Long killed = pid(holder) == null ? null : killSent.get(pid(holder));
            if (lastBeat == Long.MIN_VALUE || killed != null && killed < at || at - lastBeat >= ttl) {
                continue;
            }
            long ms = (at - lastBeat) / 1_000_000;
            out.add(Checker.violation(
                    "stolen",
                    "on " + g.path("device").asText() + ", " + g.path("key").asText()
                            + " epoch " + epoch + " was taken over by "
                            + g.path("owner").asText() + " " + ms
                            + " ms after its live holder " + holder + " last heart-beat (TTL "
                            + ev.leaseTtl().toMillis()
                            + " ms; the holder was not killed)",
                    ev,
                    e -> Checker.deviceKey(e).equals(Checker.deviceKey(g)),
                    lastBeat,
                    g));
        }
    }

    private static String beatKey(JsonNode e, long epoch) {
        return Checker.deviceKey(e) + "#" + epoch;
    }

    private static Long pid(String owner) {
        try {
            return OwnerId.parse(owner).pid();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
