package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code stuck} counter of {@link Checker} (invariant 3, fail closed but never stuck), and the
 * takeover times of the report: a run still recorded as running after the final drain, or a key
 * whose owner was killed and that no successor held within the takeover bound (the time a process of
 * the device was stopped does not count against it). Both need the same reconstruction, which keys
 * each killed process held and when a successor first held them, so it lives here apart from the
 * other checks. Stateless; thread-safe.
 */
final class StuckKeys {

    private StuckKeys() {}

    static void check(Evidence ev, List<ChaosReport.Violation> out) {
        ev.devices().forEach((name, d) -> {
            for (String run : d.unfinishedRuns()) {
                out.add(new ChaosReport.Violation(
                        "stuck",
                        "run " + run + " on " + name + " is still recorded as running after the drain",
                        List.of()));
            }
        });
        for (Takeover t : takeovers(ev)) {
            long killed = t.kill.path("mono").asLong();
            if (t.successorMono < 0) {
                out.add(Checker.violation(
                        "stuck",
                        "the owner of " + t.key + " (epoch " + t.epoch + ") was killed and no successor "
                                + "ever held the key",
                        ev,
                        e -> Checker.deviceKey(e).equals(t.key),
                        killed,
                        null));
                continue;
            }
            String device = t.kill.path("device").asText();
            for (JsonNode e : ev.events()) {
                long m = e.path("mono").asLong();
                if (m > t.successorMono) {
                    break;
                }
                if (m > killed + ev.takeoverBound().toNanos()
                        && Checker.type(e, "joined")
                        && !e.path("local").asBoolean(true)
                        && Checker.deviceKey(e).equals(t.key)
                        && e.path("epoch").asLong() == t.epoch) {
                    // While a process of the device is stopped (SIGSTOP), it may be the host of the device's
                    // shared H2 database, and then every database call of the device waits (a known limit,
                    // reliability.md): that time does not count against the bound.
                    long frozen = frozenNanos(ev, device, killed, m);
                    if (m - frozen <= killed + ev.takeoverBound().toNanos()) {
                        continue;
                    }
                    out.add(Checker.violation(
                            "stuck",
                            "the owner of " + t.key + " (epoch " + t.epoch + ") was killed, and "
                                    + (m - killed) / 1_000_000 + " ms later (bound "
                                    + ev.takeoverBound().toMillis()
                                    + " ms"
                                    + (frozen > 0
                                            ? ", plus " + frozen / 1_000_000
                                                    + " ms while a process of the device was stopped"
                                            : "")
                                    + ") a trigger still joined its run instead of taking the key over",
                            ev,
                            x -> Checker.deviceKey(x).equals(t.key),
                            killed,
                            e));
                    break;
                }
            }
        }
    }

    /**
     * How long, within {@code [from, to]}, some process of {@code device} was stopped: from each
     * {@code pause} event of the harness to the {@code resume} of the same victim (or {@code to}). A
     * pause that names no device counts for every device.
     */
    static long frozenNanos(Evidence ev, String device, long from, long to) {
        Map<Long, Long> pausedSince = new HashMap<>();
        long total = 0;
        for (JsonNode e : ev.events()) {
            long m = e.path("mono").asLong();
            if (m > to) {
                break;
            }
            boolean sameDevice = !e.has("device") || e.path("device").asText().equals(device);
            if (Checker.type(e, "pause") && sameDevice) {
                pausedSince.putIfAbsent(e.path("victim").asLong(), m);
            } else if (Checker.type(e, "resume")) {
                Long since = pausedSince.remove(e.path("victim").asLong());
                if (since != null) {
                    total += Math.max(0, Math.min(m, to) - Math.max(since, from));
                }
            }
        }
        for (long since : pausedSince.values()) {
            total += Math.max(0, to - Math.max(since, from));
        }
        return total;
    }

    /** A key held by a killed process, and when a successor first held it (-1: never). */
    private record Takeover(JsonNode kill, String key, long epoch, long successorMono) {}

    private static List<Takeover> takeovers(Evidence ev) {
        List<Takeover> out = new ArrayList<>();
        for (JsonNode kill : ev.events()) {
            if (!Checker.type(kill, "kill") || !kill.path("survivors").asBoolean()) {
                continue;
            }
            long pid = kill.path("victim").asLong();
            long at = kill.path("mono").asLong();
            Map<String, Long> held = new HashMap<>(); // device|key -> epoch
            for (JsonNode e : ev.events()) {
                if (e.path("mono").asLong() > at) {
                    break;
                }
                if (e.path("pid").asLong() != pid) {
                    continue;
                }
                if (Checker.type(e, "grant")) {
                    held.put(Checker.deviceKey(e), e.path("epoch").asLong());
                } else if (Checker.type(e, "release")) {
                    held.remove(Checker.deviceKey(e), e.path("epoch").asLong());
                }
            }
            for (Map.Entry<String, Long> h : held.entrySet()) {
                long successor = -1;
                for (JsonNode e : ev.events()) {
                    if (e.path("mono").asLong() > at
                            && Checker.type(e, "grant")
                            && Checker.deviceKey(e).equals(h.getKey())
                            && e.path("epoch").asLong() > h.getValue()) {
                        successor = e.path("mono").asLong();
                        break;
                    }
                }
                out.add(new Takeover(kill, h.getKey(), h.getValue(), successor));
            }
        }
        return out;
    }

    /**
     * For the report: milliseconds from the first trigger of a dead owner's key (the first join of
     * its run, or the successor's grant itself) to the successor's grant.
     */
    static List<Long> takeoverMillis(Evidence ev) {
        List<Long> ms = new ArrayList<>();
        for (Takeover t : takeovers(ev)) {
            if (t.successorMono < 0) {
                continue;
            }
            long asked = t.successorMono;
            for (JsonNode e : ev.events()) {
                long m = e.path("mono").asLong();
                if (m >= t.successorMono) {
                    break;
                }
                if (m > t.kill.path("mono").asLong()
                        && Checker.type(e, "joined")
                        && Checker.deviceKey(e).equals(t.key)
                        && e.path("epoch").asLong() == t.epoch) {
                    asked = m;
                    break;
                }
            }
            ms.add((t.successorMono - asked) / 1_000_000);
        }
        return ms;
    }
}
