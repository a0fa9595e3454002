package org.leasesync.sync;

import java.util.List;
import java.util.UUID;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.server.ReferenceServer;
import org.leasesync.testing.ClientStack;

/** Changes made on the server by "another device", through the real protocol. */
final class ServerSide {

    private ServerSide() {}

    /** Pushes one change and returns its change id. */
    static String push(ReferenceServer server, String user, String scope, String id, long baseVersion, String payload) {
        return change(server, user, scope, id, baseVersion, false, payload);
    }

    /** Deletes a record (leaves a tombstone) and returns the change id. */
    static String delete(ReferenceServer server, String user, String scope, String id, long baseVersion) {
        return change(server, user, scope, id, baseVersion, true, "{}");
    }

    private static String change(
            ReferenceServer server,
            String user,
            String scope,
            String id,
            long baseVersion,
            boolean deleted,
            String payload) {
        HttpSyncRemote other = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, u -> server.tokenFor(u), "other-device");
        String changeId = UUID.randomUUID().toString();
        PushResponse r = other.push(
                TaskKey.of(user, scope),
                new PushBatch(
                        "b",
                        UUID.randomUUID().toString(),
                        List.of(new OutboxEntry(
                                1, changeId, id, baseVersion, deleted, payload, java.time.Instant.EPOCH))),
                1,
                "other");
        if (!r.results().get(0).applied()) {
            throw new IllegalStateException("server-side change was not applied: " + r);
        }
        return changeId;
    }
}
