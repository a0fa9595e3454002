package org.leasesync.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The harness journal's entries for the faults of a cluster run ({@link ClusterFaults}): one event
 * per fault switched on an instance, kill, start and network fault (on and off), stamped on the
 * machine's monotonic clock like every other journal event (docs/scale-out.md "The checks").
 * Thread-safe (the journal is).
 */
final class FaultJournal {

    private final Journal journal;

    FaultJournal(Journal journal) {
        this.journal = journal;
    }

    /** A fault switch set on instance {@code k} ({@code PUT /v1/admin/faults} body {@code fault}). */
    void fault(int k, ObjectNode fault) {
        ObjectNode e = journal.event("fault");
        e.put("instance", k);
        e.set("fault", fault);
        journal.write(e);
    }

    /**
     * Instance {@code k} was killed.
     *
     * @param hostLost its whole host was lost (else {@code kill -9})
     * @param pushInFlight it held an idempotency-key claim when it was picked
     * @param jobRunInFlight it had a server job run still {@code running} when it was picked
     * @param heldAfterCommit pushes were held after their commit at the time
     */
    void serverKill(int k, boolean hostLost, boolean pushInFlight, boolean jobRunInFlight, boolean heldAfterCommit) {
        ObjectNode e = journal.event("server-kill");
        e.put("instance", k);
        e.put("how", hostLost ? "host-lost" : "kill-9");
        e.put("pushInFlight", pushInFlight);
        e.put("jobRunInFlight", jobRunInFlight);
        e.put("heldAfterCommit", heldAfterCommit);
        journal.write(e);
    }

    void serverStart(int k) {
        ObjectNode e = journal.event("server-start");
        e.put("instance", k);
        journal.write(e);
    }

    /** A network fault switched on (lasting {@code lastsMs}) or off; {@code how} says how it was made. */
    void partition(NetworkFaults.Kind kind, int k, boolean on, String how, long lastsMs) {
        ObjectNode e = journal.event("partition");
        e.put("kind", kind.label);
        if (kind != NetworkFaults.Kind.DB_LINK_DOWN) {
            e.put("instance", k);
        }
        e.put("on", on);
        e.put("how", how);
        if (on) {
            e.put("lastsMs", lastsMs);
        }
        journal.write(e);
    }
}
