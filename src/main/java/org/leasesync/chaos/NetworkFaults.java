package org.leasesync.chaos;

import java.io.IOException;

/**
 * The network faults of a cluster run: cuts between a server instance and the database or the
 * clients, an instance's or the database's link going down, and random packet loss. The cluster
 * harness decides when; an implementation makes it happen ({@link ScriptNetworkFaults}: iptables
 * and links in network namespaces, through {@code scale/net.sh}).
 *
 * <p>Instances are numbered from 1. Each {@code on} call is undone by the matching {@code off}
 * call; {@link #healAll} undoes every fault. Implementations are thread-safe; every call blocks
 * until the change is in place.
 */
interface NetworkFaults {

    /** What a fault cuts. */
    enum Kind {
        /** instance K and PostgreSQL cannot reach each other */
        DB_CUT("db-cut"),
        /** the client processes and instance K cannot reach each other */
        CLIENT_CUT("client-cut"),
        /** instance K's only link is down: nobody reaches it */
        LINK_DOWN("link-down"),
        /** PostgreSQL's link is down: no instance reaches the database (no instance number) */
        DB_LINK_DOWN("db-link-down"),
        /** a share of instance K's packets is dropped, both ways */
        LOSS("loss"),
        /**
         * instance K's host vanishes as if it lost power: its link goes down, then every process on
         * it dies and no connection of it is ever closed; off = a fresh host with the same address
         */
        HOST_LOST("host-lost");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * Switches a fault on or off.
     *
     * @param instance 1..N; ignored for {@link Kind#DB_LINK_DOWN}
     * @param lossPercent for {@link Kind#LOSS}: 1..99; ignored otherwise
     * @return how it was done, for the journal (e.g. {@code iptables} or {@code netem} for loss)
     * @throws IOException when the change could not be made (the fault is then not in place)
     */
    String set(Kind kind, int instance, int lossPercent, boolean on) throws IOException;

    /** Undoes every fault (links up, rules and qdiscs removed). */
    void healAll() throws IOException;
}
