package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.leasesync.testing.JavaProcess;

/**
 * Item 4: crash takeover. A child process holds the key (renewing it) on a data directory; it is
 * killed with SIGKILL; a new process is started on the same directory and tries the key every 5 ms.
 * The figure is the wall-clock time from the kill to the grant in the new process, which includes
 * starting its JVM and opening the database (taking over H2's file lock from the dead process). With
 * a provably dead owner (same machine, pid gone) the grant follows at once; without proof it
 * waits one TTL of observation. The goal is {@code opening_to_grant} of the provable case: from
 * the new process's first attempt to open the database to the grant, at most 1 s.
 */
final class TakeoverBench {

    /**
     * @param unprovableTtl the holder's TTL in the not-provable case (the provable case uses 60 s)
     * @param rounds measured rounds (no warm-up: every round starts new JVMs)
     */
    record Settings(Duration unprovableTtl, int rounds) {}

    private TakeoverBench() {}

    static void run(Figures f, Settings s, Path workDir) throws Exception {
        for (int round = 1; round <= s.rounds(); round++) {
            for (String mode : List.of("provable", "unprovable")) {
                Duration ttl = mode.equals("provable") ? Duration.ofSeconds(60) : s.unprovableTtl();
                Path dir = workDir.resolve("takeover-" + mode + "-" + round);
                Files.createDirectories(dir);
                Path holderOut = dir.resolve("holder.out");
                Process holder = JavaProcess.start(
                        TakeoverChildMain.class,
                        holderOut,
                        "hold",
                        dir.resolve("data").toString(),
                        Long.toString(ttl.toMillis()));
                try {
                    waitFor(holderOut, "HELD", holder);
                    Thread.sleep(300); // a heartbeat or two
                    long killedAt = System.currentTimeMillis();
                    holder.destroyForcibly(); // SIGKILL
                    holder.waitFor(30, TimeUnit.SECONDS);
                    Path takerOut = dir.resolve("taker.out");
                    Process taker = JavaProcess.start(
                            TakeoverChildMain.class,
                            takerOut,
                            "take",
                            dir.resolve("data").toString(),
                            Long.toString(ttl.toMillis()),
                            mode);
                    try {
                        String granted = waitFor(takerOut, "GRANTED", taker);
                        String opened = waitFor(takerOut, "OPENED", taker);
                        long openingAt = Long.parseLong(
                                waitFor(takerOut, "OPENING", taker).split(" ")[1]);
                        long grantedAt = Long.parseLong(granted.split(" ")[1]);
                        long openedAt = Long.parseLong(opened.split(" ")[1]);
                        long epoch = Long.parseLong(granted.split(" ")[2]);
                        if (epoch != 2) {
                            throw new IllegalStateException("takeover granted epoch " + epoch + ", expected 2");
                        }
                        String p = "takeover." + mode;
                        f.sample(p + ".kill_to_grant", grantedAt - killedAt, "ms");
                        f.sample(p + ".kill_to_open", openedAt - killedAt, "ms");
                        f.sample(p + ".open_to_grant", grantedAt - openedAt, "ms");
                        f.sample(p + ".opening_to_open", openedAt - openingAt, "ms");
                        f.sample(p + ".opening_to_grant", grantedAt - openingAt, "ms");
                        if (mode.equals("unprovable")) {
                            f.sample(p + ".ttl", ttl.toMillis(), "ms");
                        }
                        taker.waitFor(30, TimeUnit.SECONDS);
                    } finally {
                        taker.destroyForcibly();
                    }
                } finally {
                    holder.destroyForcibly();
                }
            }
        }
        f.print(
                "takeover.provable.kill_to_grant",
                "takeover.provable.kill_to_open",
                "takeover.provable.open_to_grant",
                "takeover.provable.opening_to_open",
                "takeover.provable.opening_to_grant",
                "takeover.unprovable.kill_to_grant",
                "takeover.unprovable.kill_to_open",
                "takeover.unprovable.open_to_grant",
                "takeover.unprovable.opening_to_open",
                "takeover.unprovable.ttl");
        for (String name : List.of("takeover.provable.opening_to_grant", "takeover.provable.opening_to_open")) {
            List<Double> samples = f.samples(name);
            f.note(name + " rounds=" + samples.size() + " max="
                    + Figures.format(samples.stream()
                            .mapToDouble(Double::doubleValue)
                            .max()
                            .orElse(Double.NaN)) + " ms, all: " + samples);
        }
        f.ratio(
                "takeover.provable.opening_to_grant_vs_goal_1s",
                f.median("takeover.provable.opening_to_grant") / 1000.0);
        f.ratio(
                "takeover.unprovable.open_to_grant_vs_ttl",
                f.median("takeover.unprovable.open_to_grant") / f.median("takeover.unprovable.ttl"));
    }

    /** The first line of {@code out} starting with {@code prefix}; fails if the process ends first or after 120 s. */
    private static String waitFor(Path out, String prefix, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (Files.exists(out)) {
                for (String line : Files.readAllLines(out)) {
                    if (line.startsWith(prefix + " ")) {
                        return line;
                    }
                }
            }
            if (!p.isAlive() && !Files.readString(out).contains(prefix + " ")) {
                throw new IllegalStateException("child ended without " + prefix + ": " + Files.readString(out));
            }
            Thread.sleep(2);
        }
        throw new IllegalStateException("no " + prefix + " within 120 s: " + Files.readString(out));
    }
}
