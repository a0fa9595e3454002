package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.Database;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;

/**
 * Item 2: trigger decision latency, from {@link Coordinator#submit} to its answer (started or
 * joined), through the real coordinator, registry and run store on H2 (memory, and the app's file
 * URL). Idle: one trigger at a time. Storm: 8 threads firing every source at the three scopes of
 * one user while runs of about 2 ms come and go.
 */
final class TriggerBench {

    private static final List<TaskKey> KEYS = List.of(
            TaskKey.of("alice", "course_sync"), TaskKey.of("alice", "message_sync"), TaskKey.of("alice", "backup"));
    /** The per-step reference's keys: never contend with {@link #KEYS}. */
    private static final List<TaskKey> REFERENCE_KEYS =
            List.of(TaskKey.of("bob", "course_sync"), TaskKey.of("bob", "message_sync"), TaskKey.of("bob", "backup"));

    /**
     * @param samples submits per idle figure and round
     * @param storm length of one storm
     * @param rounds measured rounds (after one warm-up round)
     * @param threads storm threads
     */
    record Settings(int samples, Duration storm, int rounds, int threads) {}

    private TriggerBench() {}

    /** The run's work: waits while {@code gate} is closed, then works {@code workMillis}. */
    private static final class Work {
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile long workMillis;
        final Map<TaskKey, AtomicInteger> running = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();

        RunOutcome run(TaskKey key) throws InterruptedException {
            AtomicInteger n = running.computeIfAbsent(key, k -> new AtomicInteger());
            if (n.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            try {
                gate.await();
                if (workMillis > 0) {
                    Thread.sleep(workMillis);
                }
                return RunOutcome.succeeded();
            } finally {
                n.decrementAndGet();
            }
        }
    }

    static void run(Figures f, Settings s, Path workDir) throws Exception {
        for (String storage : List.of("mem", "file")) {
            ExecutorService workers = Executors.newCachedThreadPool(r -> new Thread(r, "bench-sync-worker"));
            try (LocalStore store = storage.equals("mem")
                    ? LocalStore.openInMemory()
                    : LocalStore.openFile(Files.createDirectories(workDir.resolve("trigger-file")))) {
                TaskRegistry registry = new TaskRegistry(
                        store.leases(),
                        OwnerId.forCurrentProcess(),
                        TaskRegistry.DEFAULT_TTL,
                        TimeSource.system(),
                        OwnerLiveness.neverProvable());
                Work work = new Work();
                Coordinator coordinator = new Coordinator(
                        registry,
                        store.runs(),
                        ctx -> work.run(ctx.key()),
                        workers,
                        new LeaseKeeper(registry),
                        null,
                        null);
                // The reference, interleaved with the idle starts: the same store with the
                // start of a run done step by step (one commit per step), on other keys.
                Coordinator perStep = new Coordinator(
                        registry,
                        new PerStepRunStore(store.runs()),
                        ctx -> work.run(ctx.key()),
                        workers,
                        new LeaseKeeper(registry),
                        null,
                        null);
                // A lever measured but not applied: the app's URL with 64 parsed
                // statements kept per connection instead of H2's 8, a database of its own, interleaved.
                LocalStore qc64Store = storage.equals("mem")
                        ? null
                        : LocalStore.of(Database.open(
                                DataDirectory.fileUrl(Files.createDirectories(workDir.resolve("trigger-file-qc64")))
                                        + ";QUERY_CACHE_SIZE=64",
                                "trigger-file-qc64",
                                4));
                TaskRegistry qc64Registry = qc64Store == null
                        ? null
                        : new TaskRegistry(
                                qc64Store.leases(),
                                OwnerId.forCurrentProcess(),
                                TaskRegistry.DEFAULT_TTL,
                                TimeSource.system(),
                                OwnerLiveness.neverProvable());
                Coordinator qc64 = qc64Store == null
                        ? null
                        : new Coordinator(
                                qc64Registry,
                                qc64Store.runs(),
                                ctx -> work.run(ctx.key()),
                                workers,
                                new LeaseKeeper(qc64Registry),
                                null,
                                null);
                for (int round = 0; round <= s.rounds(); round++) {
                    String p = round == 0 ? null : "trigger." + storage + ".";
                    idleStarted(f, p, coordinator, perStep, qc64, work, s.samples());
                    idleJoined(f, p, coordinator, work, s.samples());
                    storm(f, p, coordinator, work, s);
                }
                coordinator.shutdown(Duration.ofSeconds(5));
                perStep.shutdown(Duration.ofSeconds(5));
                if (qc64 != null) {
                    qc64.shutdown(Duration.ofSeconds(5));
                    qc64Store.close();
                }
                if (work.overlaps.get() > 0) {
                    throw new IllegalStateException(
                            storage + ": " + work.overlaps + " runs overlapped another of their key");
                }
            } finally {
                workers.shutdownNow();
            }
        }
        for (String storage : List.of("mem", "file")) {
            String p = "trigger." + storage + ".";
            for (String what : List.of(
                    "idle.started",
                    "idle.started.perstep",
                    "idle.joined",
                    "storm.all",
                    "storm.started",
                    "storm.joined")) {
                f.print(p + what + ".p50", p + what + ".p99");
            }
            f.print(p + "storm.submits", p + "storm.runs", p + "storm.overlaps");
            for (String q : List.of("p50", "p99")) {
                f.ratio(
                        p + "idle.started." + q + ".vs_perstep",
                        f.median(p + "idle.started." + q) / f.median(p + "idle.started.perstep." + q));
            }
            if (storage.equals("file")) {
                f.print(p + "idle.started.qc64.p50", p + "idle.started.qc64.p99");
                for (String q : List.of("p50", "p99")) {
                    f.ratio(
                            p + "idle.started.qc64." + q + ".vs_app_url",
                            f.median(p + "idle.started.qc64." + q) / f.median(p + "idle.started." + q));
                }
            }
        }
    }

    /** @param qc64 the same start on a database whose URL keeps 64 parsed statements, or null (memory) */
    private static void idleStarted(
            Figures f, String prefix, Coordinator c, Coordinator perStep, Coordinator qc64, Work work, int samples)
            throws Exception {
        work.workMillis = 0;
        long[] lat = new long[samples];
        long[] ref = new long[samples];
        long[] lever = new long[samples];
        for (int i = 0; i < samples; i++) {
            lat[i] = startAndAwait(c, KEYS.get(i % KEYS.size()));
            ref[i] = startAndAwait(perStep, REFERENCE_KEYS.get(i % REFERENCE_KEYS.size()));
            if (qc64 != null) {
                lever[i] = startAndAwait(qc64, KEYS.get(i % KEYS.size()));
            }
        }
        record(f, prefix, "idle.started", lat, samples);
        record(f, prefix, "idle.started.perstep", ref, samples);
        if (qc64 != null) {
            record(f, prefix, "idle.started.qc64", lever, samples);
        }
    }

    private static long startAndAwait(Coordinator c, TaskKey key) throws Exception {
        long t0 = System.nanoTime();
        SubmitResult r = c.submit(key, TaskSource.SCHEDULE);
        long d = System.nanoTime() - t0;
        if (!(r instanceof SubmitResult.Started started)) {
            throw new IllegalStateException("idle submit did not start a run: " + r);
        }
        started.handle().completion().get(30, TimeUnit.SECONDS);
        return d;
    }

    private static void idleJoined(Figures f, String prefix, Coordinator c, Work work, int samples) throws Exception {
        work.gate = new CountDownLatch(1);
        List<SubmitResult.Started> held = new ArrayList<>();
        for (TaskKey key : KEYS) {
            held.add((SubmitResult.Started) c.submit(key, TaskSource.SCHEDULE));
        }
        long[] lat = new long[samples];
        for (int i = 0; i < samples; i++) {
            long t0 = System.nanoTime();
            SubmitResult r = c.submit(KEYS.get(i % KEYS.size()), TaskSource.FOREGROUND);
            lat[i] = System.nanoTime() - t0;
            if (!(r instanceof SubmitResult.Joined)) {
                throw new IllegalStateException("submit while running did not join: " + r);
            }
        }
        work.gate.countDown();
        for (SubmitResult.Started s : held) {
            s.handle().completion().get(30, TimeUnit.SECONDS);
        }
        record(f, prefix, "idle.joined", lat, samples);
    }

    private static void storm(Figures f, String prefix, Coordinator c, Work work, Settings s) throws Exception {
        work.workMillis = 2;
        int overlapsBefore = work.overlaps.get();
        TaskSource[] sources = TaskSource.values();
        List<long[]> all = new ArrayList<>();
        List<long[]> started = new ArrayList<>();
        List<long[]> joined = new ArrayList<>();
        int[] counts = new int[3 * s.threads()];
        AtomicLong runs = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long[] window = new long[2];
        for (int t = 0; t < s.threads(); t++) {
            long[] a = new long[1 << 17];
            long[] st = new long[1 << 17];
            long[] jo = new long[1 << 17];
            all.add(a);
            started.add(st);
            joined.add(jo);
            int me = t;
            Thread th = new Thread(
                    () -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        int na = 0;
                        int ns = 0;
                        int nj = 0;
                        try {
                            go.await();
                            long end = window[1];
                            while (System.nanoTime() < end && na < a.length) {
                                TaskKey key = KEYS.get(random.nextInt(KEYS.size()));
                                TaskSource source = sources[random.nextInt(sources.length)];
                                boolean followUp = source == TaskSource.MANUAL && random.nextInt(4) == 0;
                                long s0 = System.nanoTime();
                                SubmitResult r = c.submit(new TriggerRequest(key, source, followUp, false));
                                long d = System.nanoTime() - s0;
                                a[na++] = d;
                                if (r instanceof SubmitResult.Started) {
                                    st[ns++] = d;
                                    runs.incrementAndGet();
                                } else if (r instanceof SubmitResult.Joined
                                        || r instanceof SubmitResult.FollowUpQueued) {
                                    jo[nj++] = d;
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        } finally {
                            counts[3 * me] = na;
                            counts[3 * me + 1] = ns;
                            counts[3 * me + 2] = nj;
                        }
                    },
                    "trigger-storm-" + t);
            threads.add(th);
            th.start();
        }
        window[0] = System.nanoTime();
        window[1] = window[0] + s.storm().toNanos();
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        double seconds = (System.nanoTime() - window[0]) / 1e9;
        if (failure.get() != null) {
            throw new IllegalStateException("storm failed", failure.get());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!c.localRuns().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        long total = 0;
        for (int t = 0; t < s.threads(); t++) {
            total += counts[3 * t];
        }
        record(f, prefix, "storm.all", concat(all, counts, 0), -1);
        record(f, prefix, "storm.started", concat(started, counts, 1), -1);
        record(f, prefix, "storm.joined", concat(joined, counts, 2), -1);
        if (prefix != null) {
            f.sample(prefix + "storm.submits", total / seconds, "submits/s");
            f.sample(prefix + "storm.runs", runs.get() / seconds, "runs/s");
            f.sample(prefix + "storm.overlaps", work.overlaps.get() - overlapsBefore, "runs");
        }
    }

    private static long[] concat(List<long[]> parts, int[] counts, int slot) {
        int n = 0;
        for (int t = 0; t < parts.size(); t++) {
            n += counts[3 * t + slot];
        }
        long[] out = new long[n];
        int at = 0;
        for (int t = 0; t < parts.size(); t++) {
            int len = counts[3 * t + slot];
            System.arraycopy(parts.get(t), 0, out, at, len);
            at += len;
        }
        return out;
    }

    private static void record(Figures f, String prefix, String name, long[] nanos, int n) {
        if (prefix == null) {
            return;
        }
        long[] v = n < 0 ? nanos : Arrays.copyOf(nanos, n);
        if (v.length == 0) {
            return;
        }
        Arrays.sort(v);
        f.sample(
                prefix + name + ".p50", v[(int) Math.min(v.length - 1, Math.round(0.50 * (v.length - 1)))] / 1e6, "ms");
        f.sample(
                prefix + name + ".p99", v[(int) Math.min(v.length - 1, Math.round(0.99 * (v.length - 1)))] / 1e6, "ms");
    }
}
