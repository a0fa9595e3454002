package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.store.SavedEdit;
import org.leasesync.testing.ClientStack;

/**
 * Through the store API with a real client and the real reference server: an
 * edit is based on the version the user saw, so another device's version pulled between seeing and
 * saving makes it a conflict instead of being silently overwritten; the user's own confirmed edit in
 * between is no conflict; and a conflict with a record deleted on the server says so, and keeping
 * the edit restores the record. Client store on H2 here, on PostgreSQL in a subclass.
 */
class StaleEditSyncTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    ReferenceServer server;
    LocalStore store;
    LocalStore otherStore;
    ClientStack client;
    ClientStack other;

    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    @BeforeEach
    void setUp() throws Exception {
        server = ReferenceServer.start(ServerConfig.defaults());
        store = openStore();
        otherStore = LocalStore.openInMemory();
        Map<String, String> tokens = Map.of("alice", server.tokenFor("alice"));
        client = new ClientStack(store, server.baseUrl(), tokens);
        other = new ClientStack(otherStore, server.baseUrl(), tokens);
        synced(client);
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
        store.close();
        otherStore.close();
        server.close();
    }

    @Test
    void anEditOnTheVersionTheUserSawIsAConflictWhenAnotherDevicesVersionArrivedBeforeItWasSaved() throws Exception {
        long seen = version("course-1");
        assertThat(seen).isEqualTo(1);
        ServerSide.push(server, "alice", "course_sync", "course-1", 1, "{\"title\":\"other device\"}");
        synced(client); // the pull brings version 2 while the user edits

        SavedEdit saved = client.edits.saveEdit(KEY, "course-1", "{\"title\":\"mine\"}", false, OptionalLong.of(seen));

        assertThat(saved.conflict()).isTrue();
        assertThat(saved.baseVersion()).isEqualTo(1);
        assertThat(saved.currentVersion()).isEqualTo(2);
        JdbcLocalEdits.OutboxItem entry =
                client.edits.entry(KEY, saved.changeId()).orElseThrow();
        assertThat(entry.isConflict()).isTrue();
        assertThat(entry.serverSide()).isEqualTo("v2 {\"title\":\"other device\"}");
        synced(client);
        synced(other);
        assertThat(payload(other, "course-1")).as("not silently overwritten").contains("other device");

        assertThat(client.edits.keepMine(KEY, saved.changeId())).isTrue();
        synced(client);
        synced(other);
        assertThat(payload(other, "course-1")).as("kept by the user's choice").contains("mine");
        assertThat(other.edits.record(KEY, "course-1").orElseThrow().version()).isEqualTo(3);
    }

    @Test
    void anEditOnTheSeenVersionAfterTheUsersOwnEditWasConfirmedIsNoConflictButAnotherDevicesVersionIs()
            throws Exception {
        SavedEdit first = client.edits.saveEdit(KEY, "course-1", "{\"title\":\"mine 1\"}", false, OptionalLong.of(1));
        assertThat(first.conflict()).isFalse();
        synced(client); // confirmed: version 2 is the user's own edit on 1
        SavedEdit second = client.edits.saveEdit(KEY, "course-1", "{\"title\":\"mine 2\"}", false, OptionalLong.of(1));
        assertThat(second.conflict())
                .as("the form still shows version 1; 2 is the user's own")
                .isFalse();
        assertThat(second.baseVersion()).isEqualTo(2);
        synced(client);
        assertThat(version("course-1")).isEqualTo(3);
        assertThat(client.edits.outbox(KEY)).isEmpty();

        ServerSide.push(server, "alice", "course_sync", "course-1", 3, "{\"title\":\"other device\"}");
        synced(client); // version 4 comes from another device
        assertThat(client.edits
                        .saveEdit(KEY, "course-1", "{\"title\":\"x\"}", false, OptionalLong.of(3))
                        .conflict())
                .isTrue();
        assertThat(client.edits
                        .saveEdit(KEY, "course-new", "{\"title\":\"new\"}", false, OptionalLong.of(0))
                        .conflict())
                .as("a new record the user saw as absent")
                .isFalse();
        assertThat(client.edits
                        .saveEdit(KEY, "course-2", "{\"title\":\"y\"}", false, OptionalLong.of(0))
                        .conflict())
                .as("the user saw no course-2, but it exists")
                .isTrue();
    }

    @Test
    void aConflictWithARecordDeletedOnTheServerSaysSoAndKeepingTheEditRestoresIt() throws Exception {
        String mine = client.edits.addEdit(KEY, "course-2", "{\"title\":\"mine\"}", false);
        ServerSide.delete(server, "alice", "course_sync", "course-2", 1);

        synced(client);

        JdbcLocalEdits.OutboxItem conflict = client.edits.entry(KEY, mine).orElseThrow();
        assertThat(conflict.isConflict()).isTrue();
        assertThat(conflict.serverDeleted()).isTrue();
        assertThat(conflict.serverVersion()).isEqualTo(2);
        assertThat(conflict.serverLacksRecord()).isTrue();
        assertThat(conflict.serverSide()).isEqualTo("deleted on the server (v2)");
        assertThat(conflict.keepMineMeans())
                .isEqualTo("the next sync restores course-2, which was deleted on the server");
        assertThat(client.edits.keepMine(KEY, mine)).isTrue();
        synced(client);
        synced(other);
        assertThat(other.edits.record(KEY, "course-2").orElseThrow().deleted())
                .as("restored")
                .isFalse();
        assertThat(payload(other, "course-2")).contains("mine");
    }

    void synced(ClientStack device) throws Exception {
        assertThat(device.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    long version(String id) {
        return client.edits.record(KEY, id).orElseThrow().version();
    }

    static String payload(ClientStack device, String id) {
        return device.edits.record(KEY, id).orElseThrow().payloadJson();
    }
}
