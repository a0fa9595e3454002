package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.store.Database;

/**
 * Item 1: lease acquire + release, leasesync's registry against ShedLock's JDBC provider and raw
 * SQL, on one H2 database through one HikariCP pool of 4, in memory and in a file (the app's URL).
 * Contenders and scenarios are interleaved in every round; each figure is the median over rounds
 * of successful acquire+release pairs per second.
 */
final class LeaseBench {

    static final int MAX_KEYS = 1_000;
    static final int POOL = 4;
    static final String[] SCENARIOS = {"1t1k", "8t1000k", "8t1k"};

    /**
     * @param slice how long one contender runs one scenario in one round
     * @param rounds measured rounds (after one warm-up round)
     * @param threads threads of the two multi-threaded scenarios
     * @param keys keys of the "over many keys" scenario (at most {@link #MAX_KEYS})
     */
    record Settings(Duration slice, int rounds, int threads, int keys) {
        Settings {
            if (keys < 1 || keys > MAX_KEYS || rounds < 1 || threads < 1) {
                throw new IllegalArgumentException("bad lease bench settings: " + keys + " keys, " + rounds + " rounds");
            }
        }
    }

    /** What one run of one scenario saw. */
    record Result(double opsPerSecond, long acquisitions, int maxHolders, long failures) { }

    private LeaseBench() {
    }

    static void run(Figures f, Settings s, Path workDir) throws Exception {
        for (String storage : List.of("mem", "file")) {
            Database db = storage.equals("mem")
                    ? Database.open("jdbc:h2:mem:lease-bench-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
                            "lease bench (memory)", POOL)
                    : Database.open(Database.fileUrl(Files.createDirectories(workDir.resolve("lease-file"))),
                            "lease bench (file)", POOL);
            try (db) {
                List<LeaseContenders.Contender> all = List.of(LeaseContenders.leasesync(db), LeaseContenders.shedlock(db),
                        LeaseContenders.raw(db));
                for (LeaseContenders.Contender c : all) {     // first grant of every key: inserts rows
                    for (int k = 0; k < s.keys(); k++) {
                        Object h = c.tryLock(k);
                        if (h == null) {
                            throw new IllegalStateException(c.name() + " could not take free key " + k);
                        }
                        c.unlock(h);
                    }
                }
                for (int round = 0; round <= s.rounds(); round++) {          // round 0 warms up
                    for (String scenario : SCENARIOS) {
                        for (int i = 0; i < all.size(); i++) {
                            LeaseContenders.Contender c = all.get((i + round) % all.size());   // rotate the order
                            Result r = measure(c, scenario, s);
                            if (r.maxHolders() > 1) {
                                throw new IllegalStateException(c.name() + " " + storage + " " + scenario + ": "
                                        + r.maxHolders() + " holders at once");
                            }
                            if (r.failures() > 0) {
                                throw new IllegalStateException(c.name() + " " + storage + " " + scenario + ": "
                                        + r.failures() + " failed operations");
                            }
                            if (round > 0) {
                                String base = "lease." + storage + "." + scenario + "." + c.name();
                                f.sample(base, r.opsPerSecond(), "ops/s");
                                if (scenario.equals("8t1k")) {
                                    f.sample(base + ".max_holders", r.maxHolders(), "holders");
                                }
                            }
                        }
                    }
                }
            }
        }
        for (String storage : List.of("mem", "file")) {
            for (String scenario : SCENARIOS) {
                String base = "lease." + storage + "." + scenario + ".";
                f.print(base + "leasesync", base + "shedlock", base + "raw");
                if (scenario.equals("8t1k")) {
                    f.print(base + "leasesync.max_holders", base + "shedlock.max_holders", base + "raw.max_holders");
                }
            }
        }
        for (String storage : List.of("mem", "file")) {
            for (String scenario : SCENARIOS) {
                String base = "lease." + storage + "." + scenario + ".";
                f.ratio("lease." + storage + "." + scenario + ".leasesync_vs_shedlock",
                        f.median(base + "leasesync") / f.median(base + "shedlock"));
                f.ratio("lease." + storage + "." + scenario + ".shedlock_vs_raw",
                        f.median(base + "shedlock") / f.median(base + "raw"));
            }
        }
    }

    /** Runs one scenario for one slice. */
    static Result measure(LeaseContenders.Contender c, String scenario, Settings s) throws Exception {
        int threads = scenario.equals("1t1k") ? 1 : s.threads();
        boolean oneKey = !scenario.equals("8t1000k");
        AtomicLong acquisitions = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        long[] window = new long[2];
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    start.await();
                    long end = window[1];
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < end) {
                        int key = oneKey ? 0 : random.nextInt(s.keys());
                        Object h = c.tryLock(key);
                        if (h == null) {
                            Thread.yield();   // lost: let the holder run (2 cores, 8 threads), then try again
                            continue;
                        }
                        if (oneKey) {       // over many keys, several are held at once, legitimately
                            int now = holders.incrementAndGet();
                            maxHolders.accumulateAndGet(now, Math::max);
                            Thread.onSpinWait();
                            holders.decrementAndGet();
                        }
                        c.unlock(h);
                        acquisitions.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.incrementAndGet();
                    firstFailure.compareAndSet(null, e);
                }
            }, "lease-bench-" + t);
            workers.add(w);
            w.start();
        }
        window[0] = System.nanoTime();
        window[1] = window[0] + s.slice().toNanos();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long elapsed = Math.max(System.nanoTime() - window[0], 1);
        if (firstFailure.get() != null) {
            firstFailure.get().printStackTrace();
        }
        return new Result(acquisitions.get() * 1e9 / elapsed, acquisitions.get(), maxHolders.get(), failures.get());
    }
}
