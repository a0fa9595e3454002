package org.leasesync.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The faults of a cluster run, chosen by the seed: {@code drop-after-apply} on an instance; a
 * {@code kill -9} of an instance — or the loss of its whole host — while one of its pushes or server
 * job runs is in flight, and its restart; and network faults ({@link NetworkFaults}) that heal by themselves after a few seconds. One instance
 * always stays up (killed instances are restarted after a few seconds) and each instance has at
 * most one network fault at a time.
 *
 * <p>Every random choice is drawn on the calling (main) thread, in call order, so a seed gives the
 * same schedule of actions; heals and restarts run on the background executor. Each action is
 * journaled. Not thread-safe: one caller.
 */
final class ClusterFaults {

    /** How long every push of every instance is held after its commit while the harness looks for one to kill. */
    static final Duration DELAY_BEFORE_KILL = Duration.ofMillis(1500);

    private final ServerInstances instances;
    private final NetworkFaults network;
    private final ClaimProbe probe;
    private final FaultJournal journal;
    private final Random rnd;
    private final ScheduledExecutorService background;
    private final PrintStream progress;
    private final AtomicBoolean[] down;
    /** The network fault each instance has now (null: none); index 0 is the database's link. */
    private final java.util.List<AtomicReference<NetworkFaults.Kind>> netFault;

    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger killsMidPush = new AtomicInteger();
    private final AtomicInteger killsMidJob = new AtomicInteger();
    private final AtomicInteger partitions = new AtomicInteger();
    private final AtomicInteger drops = new AtomicInteger();
    private final AtomicInteger hostsLost = new AtomicInteger();
    private volatile boolean draining;

    ClusterFaults(
            ServerInstances instances,
            NetworkFaults network,
            ClaimProbe probe,
            Journal journal,
            Random rnd,
            ScheduledExecutorService background,
            PrintStream progress) {
        this.instances = instances;
        this.network = network;
        this.probe = probe;
        this.journal = new FaultJournal(journal);
        this.rnd = rnd;
        this.background = background;
        this.progress = progress;
        this.down = new AtomicBoolean[instances.count() + 1];
        java.util.Arrays.setAll(down, k -> new AtomicBoolean());
        this.netFault = java.util.stream.IntStream.rangeClosed(0, instances.count())
                .mapToObj(k -> new AtomicReference<NetworkFaults.Kind>())
                .toList();
    }

    int kills() {
        return kills.get();
    }

    int partitions() {
        return partitions.get();
    }

    /** One line for the progress output: what was injected. */
    String describe() {
        return "kills=" + kills + " (a push in flight: " + killsMidPush + ", a job run in flight: " + killsMidJob
                + ", whole host: " + hostsLost + ") partitions=" + partitions + " drop-after-apply=" + drops;
    }

    /** Arms {@code drop-after-apply=1} on a seeded instance: its next push is applied, then its connection dropped. */
    void dropAfterApply() {
        int k = 1 + rnd.nextInt(instances.count());
        if (draining || down[k].get() || !reachable(k)) {
            return;
        }
        ObjectNode f = Journal.JSON.createObjectNode().put("dropAfterApply", 1);
        try {
            instances.admin(k).setFaults(f);
        } catch (IOException e) {
            return; // partitioned from the harness or restarting: no fault
        }
        drops.incrementAndGet();
        journal.fault(k, f);
    }

    /**
     * Kills an instance mid-push or mid-job: (two times in three) holds every push of every running
     * instance for {@link #DELAY_BEFORE_KILL} after its commit and lets {@code provoke} start pushes;
     * then (one time in two) picks an instance with a server job run in flight (a run paused by
     * {@code --job-pause}, {@link ClusterJobs}), else waits up to 3 s for an instance to hold an
     * idempotency-key claim and picks that one, else one with a job run in flight, else the seeded
     * one. One time in four its whole host is lost ({@link NetworkFaults.Kind#HOST_LOST}: no
     * connection closed, as in a power loss), else its process gets {@code kill -9}. Then lifts the
     * hold and restarts the victim (on a fresh host) after 0.5–3 s. The journal says whether the
     * victim held a claim, and whether it had a job run in flight when the probe looked. Skipped when
     * only one instance is up. Blocks for up to about 4 s.
     */
    void killMidWork(Runnable provoke) throws InterruptedException {
        int seeded = 1 + rnd.nextInt(instances.count());
        long restartAfterMs = 500 + rnd.nextInt(2500);
        boolean hold = rnd.nextInt(3) != 0; // else the kill may land inside the push's transaction
        boolean wholeHost = rnd.nextInt(4) == 0;
        boolean jobFirst = rnd.nextBoolean();
        if (draining || downCount() >= instances.count() - 1) {
            return;
        }
        List<Integer> up = new ArrayList<>();
        Map<String, Integer> byId = new HashMap<>();
        for (int k = 1; k <= instances.count(); k++) {
            if (instances.alive(k) && !down[k].get() && reachable(k)) {
                up.add(k);
                int instance = k;
                instances.instanceId(k).ifPresent(id -> byId.put(id, instance));
                if (hold) {
                    setDelay(k, DELAY_BEFORE_KILL);
                }
            }
        }
        if (up.isEmpty()) {
            return;
        }
        provoke.run();
        Set<String> runningJobs = probe.runningJobs(byId.keySet());
        Optional<String> jobRunner = runningJobs.stream().findFirst();
        Optional<String> holder = jobFirst && jobRunner.isPresent()
                ? Optional.empty()
                : probe.awaitClaim(byId.keySet(), Duration.ofSeconds(3));
        int victim = holder.or(() -> jobRunner).map(byId::get).orElse(up.contains(seeded) ? seeded : up.get(0));
        boolean midJob = instances.instanceId(victim).map(runningJobs::contains).orElse(false);
        down[victim].set(true);
        boolean hostLost =
                wholeHost && netFault.get(victim).compareAndSet(null, NetworkFaults.Kind.HOST_LOST) && loseHost(victim);
        instances.kill9(victim); // after a lost host: only reaps the process
        kills.incrementAndGet();
        if (holder.isPresent()) {
            killsMidPush.incrementAndGet();
        }
        if (midJob) {
            killsMidJob.incrementAndGet();
        }
        journal.serverKill(victim, hostLost, holder.isPresent(), midJob, hold);
        for (int k : up) {
            if (hold && k != victim) {
                setDelay(k, Duration.ZERO);
            }
        }
        background.schedule(() -> restart(victim, hostLost), restartAfterMs, TimeUnit.MILLISECONDS);
    }

    private boolean loseHost(int k) {
        try {
            network.set(NetworkFaults.Kind.HOST_LOST, k, 0, true);
            hostsLost.incrementAndGet();
            return true;
        } catch (IOException e) {
            progress.println(
                    "cluster: could not lose the host of instance " + k + ": " + e.getMessage() + " (kill -9 instead)");
            netFault.get(k).set(null);
            return false;
        }
    }

    /**
     * Switches on a seeded network fault (instance cut from the database or from the clients, an
     * instance's link down, packet loss on an instance's link, or the database's link down) for
     * 2–8 s, one time in twenty for 20–35 s; it heals on the background executor. Skipped when that instance (or the database link)
     * already has one.
     */
    void partition() {
        int dice = rnd.nextInt(100);
        NetworkFaults.Kind kind = dice < 30
                ? NetworkFaults.Kind.DB_CUT
                : dice < 60
                        ? NetworkFaults.Kind.CLIENT_CUT
                        : dice < 75
                                ? NetworkFaults.Kind.LINK_DOWN
                                : dice < 90 ? NetworkFaults.Kind.LOSS : NetworkFaults.Kind.DB_LINK_DOWN;
        int k = 1 + rnd.nextInt(instances.count());
        int lossPercent = 10 + rnd.nextInt(21);
        long shortMs = 2000 + rnd.nextInt(6000);
        boolean longCut = rnd.nextInt(20) == 0; // longer than PostgreSQL's dead-peer detection (about 15 s)
        long lastsMs = longCut ? 20_000 + rnd.nextInt(15_000) : shortMs;
        AtomicReference<NetworkFaults.Kind> slot = netFault.get(kind == NetworkFaults.Kind.DB_LINK_DOWN ? 0 : k);
        if (draining || !slot.compareAndSet(null, kind)) {
            return;
        }
        String how;
        try {
            how = network.set(kind, k, lossPercent, true);
        } catch (IOException e) {
            progress.println("cluster: could not set " + kind.label + " on instance " + k + ": " + e.getMessage());
            slot.set(null);
            return;
        }
        partitions.incrementAndGet();
        journal.partition(kind, k, true, how, lastsMs);
        background.schedule(
                () -> {
                    try {
                        journal.partition(kind, k, false, network.set(kind, k, lossPercent, false), 0);
                    } catch (IOException e) {
                        progress.println("cluster: could not heal " + kind.label + " on instance " + k + ": "
                                + e.getMessage() + " (the drain heals everything)");
                    } finally {
                        slot.set(null);
                    }
                },
                lastsMs,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Ends every fault: lets pending heals and restarts finish, heals the whole network, starts any
     * instance that is not running and clears every instance's fault switches. Blocks (bounded:
     * about 2 minutes for the background work, 60 s per instance start).
     *
     * @throws IOException when an instance cannot be started or its faults cannot be cleared
     */
    void drain() throws IOException, InterruptedException {
        draining = true;
        background.shutdown(); // delayed heals and restarts still run
        if (!background.awaitTermination(120, TimeUnit.SECONDS)) {
            progress.println("cluster: background heals/restarts still running after 120 s");
        }
        network.healAll();
        for (int k = 1; k <= instances.count(); k++) {
            if (!instances.alive(k)) {
                instances.start(k);
                journal.serverStart(k);
            }
            instances.clearFaults(k, Duration.ofSeconds(120), progress);
        }
    }

    private void restart(int k, boolean freshHost) {
        try {
            if (freshHost) {
                network.set(NetworkFaults.Kind.HOST_LOST, k, 0, false);
                netFault.get(k).set(null);
            }
            instances.start(k);
            journal.serverStart(k);
        } catch (IOException e) {
            progress.println(
                    "cluster: instance " + k + " did not restart: " + e.getMessage() + " (the drain tries again)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            down[k].set(false);
        }
    }

    /** Whether the harness can reach instance {@code k} (its link is not down). */
    private boolean reachable(int k) {
        return netFault.get(k).get() != NetworkFaults.Kind.LINK_DOWN;
    }

    private int downCount() {
        int n = 0;
        for (int k = 1; k <= instances.count(); k++) {
            if (down[k].get()) {
                n++;
            }
        }
        return n;
    }

    private void setDelay(int k, Duration delay) {
        try {
            instances.admin(k).setFaults(Journal.JSON.createObjectNode().put("delayAfterApplyMs", delay.toMillis()));
        } catch (IOException e) {
            // partitioned from the harness: that instance's pushes are not held
        }
    }
}
