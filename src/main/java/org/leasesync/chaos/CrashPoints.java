package org.leasesync.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.leasesync.lease.TaskKey;

/**
 * Named points in a sync run where the chaos harness may kill the process: every point reached is
 * journaled; an armed point also tells the harness ("hit") and parks the thread that reached it
 * until the harness's {@code kill -9} arrives, so the process dies exactly there.
 *
 * <p>Thread-safe. {@link #reached} blocks forever when it fires.
 */
final class CrashPoints {

    /** Every point, in run order (the harness picks from it by index, so the order is part of its schedule). */
    static final List<String> ALL = List.of(
            "pull.requesting", // before a pull request is sent
            "pull.applied", // a page and its cursor committed
            "push.checkpointed", // batch + idempotency key saved, nothing sent yet
            "push.answered", // the server answered the push; the confirmation is not written yet
            "push.confirmed", // the confirmation committed
            "run.done"); // the done checkpoint committed

    private final Journal journal;
    private final Consumer<ObjectNode> tellHarness;
    /** An armed point: {@code pause} means the thread waits for {@link #release} instead of a kill. */
    private record Arm(String point, boolean pause) {}

    private final AtomicReference<Arm> armed = new AtomicReference<>();
    private volatile java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);

    CrashPoints(Journal journal, Consumer<ObjectNode> tellHarness) {
        this.journal = journal;
        this.tellHarness = tellHarness;
    }

    /**
     * Arms one point: the next thread to reach it tells the harness and parks — until the process is
     * killed, or with {@code pause} until {@link #release} (the harness stops the process meanwhile).
     */
    void arm(String point, boolean pause) {
        if (!ALL.contains(point)) {
            throw new IllegalArgumentException("unknown crash point '" + point + "'; known: " + ALL);
        }
        released = new java.util.concurrent.CountDownLatch(1);
        armed.set(new Arm(point, pause));
    }

    /** Lets a thread parked at a paused point go on. */
    void release() {
        released.countDown();
    }

    void disarm() {
        armed.set(null);
    }

    /** Journals that the run of {@code key} at {@code epoch} reached {@code point}; parks if armed. */
    void reached(String point, TaskKey key, long epoch) {
        ObjectNode e = journal.event("point");
        e.put("point", point);
        e.put("key", key.asString());
        e.put("epoch", epoch);
        journal.write(e);
        Arm arm = armed.get();
        if (arm != null && arm.point().equals(point) && armed.compareAndSet(arm, null)) {
            ObjectNode hit = e.deepCopy();
            hit.put("type", "hit");
            hit.put("pause", arm.pause());
            java.util.concurrent.CountDownLatch goOn = released;
            journal.write(hit);
            tellHarness.accept(hit);
            if (arm.pause()) {
                try {
                    goOn.await(5, java.util.concurrent.TimeUnit.MINUTES);
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
                ObjectNode woke = journal.event("woke");
                woke.put("point", point);
                woke.put("key", key.asString());
                woke.put("epoch", epoch);
                journal.write(woke);
                return;
            }
            while (true) { // wait for kill -9
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException ignored) {
                    // a crash point ignores interrupts: only the kill ends it
                }
            }
        }
    }
}
