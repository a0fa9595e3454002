package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reads what the {@link Checker} judges once the chaos harness has drained: the server's request
 * audit and final records, the client processes' end, each device's database and the journals.
 * Stateless; blocks on every source.
 */
final class FinalEvidence {

    /** Where the evidence comes from, and how the client processes end. */
    interface Sources {

        /** Ends every client process (asks each to quit, kills those that do not). Blocks. */
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

    private FinalEvidence() {
    }

    static Evidence read(Sources sources, Duration leaseTtl, Duration takeoverBound) throws IOException {
        List<JsonNode> audit = sources.audit();
        Map<String, List<JsonNode>> serverRecords = sources.serverRecords();
        sources.stopClients();
        Map<String, Evidence.Device> devices = sources.devices();
        return new Evidence(sources.journals(), audit, devices, serverRecords, leaseTtl, takeoverBound);
    }
}
