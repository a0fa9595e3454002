package org.leasesync.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.leasesync.registry.TaskKey;

/**
 * Named points in a sync run where the chaos harness may kill the process: every point reached is
 * journaled; an armed point also tells the harness ("hit") and parks the thread that reached it
 * until the harness's {@code kill -9} arrives, so the process dies exactly there.
 *
 * <p>Thread-safe. {@link #reached} blocks forever when it fires.
 */
final class CrashPoints {

    /** Every point, in run order. */
    static final Set<String> ALL = Set.of(
            "pull.requesting",      // before a pull request is sent
            "pull.applied",         // a page and its cursor committed
            "push.checkpointed",    // batch + idempotency key saved, nothing sent yet
            "push.answered",        // the server answered the push; the confirmation is not written yet
            "push.confirmed",       // the confirmation committed
            "run.done");            // the done checkpoint committed

    private final Journal journal;
    private final Consumer<ObjectNode> tellHarness;
    private final AtomicReference<String> armed = new AtomicReference<>();

    CrashPoints(Journal journal, Consumer<ObjectNode> tellHarness) {
        this.journal = journal;
        this.tellHarness = tellHarness;
    }

    /** Arms one point: the next thread to reach it parks and the harness is told. */
    void arm(String point) {
        if (!ALL.contains(point)) {
            throw new IllegalArgumentException("unknown crash point '" + point + "'; known: " + ALL);
        }
        armed.set(point);
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
        String armedNow = armed.get();
        if (point.equals(armedNow) && armed.compareAndSet(armedNow, null)) {   // CAS compares identity: use the stored instance
            ObjectNode hit = e.deepCopy();
            hit.put("type", "hit");
            journal.write(hit);
            tellHarness.accept(hit);
            while (true) {            // wait for kill -9
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException ignored) {
                    // a crash point ignores interrupts: only the kill ends it
                }
            }
        }
    }
}
