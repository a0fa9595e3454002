package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reads what the {@link Checker} judges once the chaos harness has drained, as one consistent cut
 * of the run: first every client process ends, then the server's request audit and final records
 * are read, then each device's database and the journals.
 *
 * <p>Why in this order: an edit leaves its outbox only once its device has the server's answer, and
 * the server commits a push's audit row with its effects. With no client left when the audit is
 * read, an edit missing from an outbox read afterwards was applied before the audit was read, so the
 * audit shows it. The drain does not make the clients idle: a command that waited (e.g. behind the
 * device's database while that changed hosts) may still edit and sync after the last settle, and
 * with the audit read first such an edit was pushed and confirmed between the two reads, in neither
 * of them, and counted lost. Stateless; blocks on every source.
 */
final class FinalEvidence {

    /** Where the evidence comes from, and how the client processes end. */
    interface Sources {

        /** Ends every client process (asks each to quit, kills those that do not); called first. Blocks. */
        void stopClients();

        /** The server's request audit, in seq order. */
        List<JsonNode> audit() throws IOException;

        /** The server's final records (pull JSON objects) by {@code user|scope}. */
        Map<String, List<JsonNode>> serverRecords() throws IOException;

        /** Each device's local database, by device name; called after {@link #stopClients}. */
        Map<String, Evidence.Device> devices();

        /** Every journal event, in mono order. */
        List<JsonNode> journals() throws IOException;
    }

    private FinalEvidence() {}

    static Evidence read(Sources sources, Duration leaseTtl, Duration takeoverBound) throws IOException {
        sources.stopClients(); // first: once the audit is read, no client can confirm a push any more
        List<JsonNode> audit = sources.audit();
        Map<String, List<JsonNode>> serverRecords = sources.serverRecords();
        Map<String, Evidence.Device> devices = sources.devices();
        return new Evidence(sources.journals(), audit, devices, serverRecords, leaseTtl, takeoverBound);
    }
}
