package org.leasesync.chaos;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The OS time faults of a chaos run: which {@link OsTime} each agent start gets, the environment
 * that gives it, and how many starts of each kind there were. Without the {@code LD_PRELOAD}
 * libraries every agent runs on the machine's own clocks.
 *
 * <p>Thread-safe: agents start on the harness's main thread and, after a kill, on background
 * threads; a start's OS time depends only on the seed, the slot and the incarnation, and the counts
 * are atomic. Never blocks.
 */
final class OsTimeFaults {

    private final OsTime.Libraries libraries;
    private final long seed;
    private final int slots;
    /** Agent starts per OS time ({@link OsTime#describe()} of its kind: normal, ahead, behind, btime). */
    private final Map<OsTime.Kind, AtomicInteger> starts = new EnumMap<>(OsTime.Kind.class);

    /**
     * @param libraries the libraries that move an agent's time, or null for none
     * @param seed the run's seed
     * @param slots agent slots, device B's (the last) included
     */
    OsTimeFaults(OsTime.Libraries libraries, long seed, int slots) {
        this.libraries = libraries;
        this.seed = seed;
        this.slots = slots;
        for (OsTime.Kind k : OsTime.Kind.values()) {
            starts.put(k, new AtomicInteger());
        }
    }

    /**
     * The OS time an agent starts with. First starts: the first process on the machine's clock (it
     * opens, and so hosts, device A's database first), the second with its wall clock 3 h ahead, the
     * third (and more) started after a 5 s clock step as {@code btime} shows it (so it judges the
     * older processes' starts through a moved {@code btime}), device B 3 h behind. Restarts: random,
     * from the seed, the slot and the incarnation (restarts happen on background threads, so the
     * schedule's own random sequence is not used).
     */
    OsTime forStart(int slot, int incarnation) {
        if (libraries == null) {
            return OsTime.NORMAL;
        }
        if (incarnation == 0) {
            if (slot == slots - 1) {
                return new OsTime(OsTime.Kind.BEHIND, 3);
            }
            return switch (slot) {
                case 0 -> OsTime.NORMAL;
                case 1 -> new OsTime(OsTime.Kind.AHEAD, 3);
                default -> new OsTime(OsTime.Kind.BTIME, slot % 2 == 0 ? 5 : -5);
            };
        }
        // SplittableRandom mixes its seed: neighbouring seeds (next incarnation) draw independently,
        // where java.util.Random's first draws from neighbouring seeds are alike
        return OsTime.random(new SplittableRandom(seed * 1_000_003L + slot * 7_919L + incarnation));
    }

    /** The variables to add to an agent's environment so that it sees {@code os}. */
    Map<String, String> environment(OsTime os) {
        return os.environment(libraries);
    }

    /** Counts one agent start with {@code os}. */
    void started(OsTime os) {
        starts.get(os.kind()).incrementAndGet();
    }

    /** Starts of agents of the given OS time kind so far. */
    int starts(OsTime.Kind kind) {
        return starts.get(kind).get();
    }

    /** Starts with time moved (every kind but normal) so far: each is a fault of the run. */
    int moved() {
        return starts(OsTime.Kind.AHEAD) + starts(OsTime.Kind.BEHIND) + starts(OsTime.Kind.BTIME);
    }

    /** {@code os_time normal=N wall_ahead=A wall_behind=B btime=C}. */
    String line() {
        return "os_time normal=" + starts.get(OsTime.Kind.NORMAL) + " wall_ahead=" + starts.get(OsTime.Kind.AHEAD)
                + " wall_behind=" + starts.get(OsTime.Kind.BEHIND) + " btime=" + starts.get(OsTime.Kind.BTIME);
    }
}
