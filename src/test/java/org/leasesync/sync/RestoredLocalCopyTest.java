package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * The local database restored from an older copy (a backup, a VM snapshot) has a
 * lease table whose epochs are behind the fencing tokens the sync server has already seen from this
 * device. Every run was then refused as "taken over" until the epochs caught up again — thousands of
 * runs for a device that synced every few minutes. Now the first run raises the epoch and the next
 * one goes through. (A genuine takeover still raises nothing: SyncEndToEndTest's
 * staleRunThatLostItsLeaseMidPushCannotWriteItsCheckpointNorPushASecondCopy.)
 */
class RestoredLocalCopyTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    ReferenceServer server;

    @BeforeEach
    void start() {
        server = ReferenceServer.start(ServerConfig.defaults());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    RunResult sync(Path dir, String... edits) throws Exception {
        try (LocalStore store = LocalStore.openFile(dir);
                ClientStack client =
                        new ClientStack(store, server.baseUrl(), Map.of("alice", server.tokenFor("alice")))) {
            for (String id : edits) {
                client.edits.addEdit(ALICE, id, "{\"title\":\"" + id + "\"}", false);
            }
            return client.sync(ALICE, TaskSource.MANUAL);
        }
    }

    long leaseEpoch(Path dir) {
        try (LocalStore store = LocalStore.openFile(dir)) {
            return store.leases().read(ALICE).orElseThrow().epoch();
        }
    }

    @Test
    void aRunOnARestoredOlderCopyRaisesTheEpochAndTheNextRunGoesThrough() throws Exception {
        Path dir = tmp.resolve("data");
        Path backup = tmp.resolve("backup.mv.db");
        assertThat(sync(dir).status()).isEqualTo(RunStatus.SUCCEEDED);
        Files.copy(dir.resolve("leasesync.mv.db"), backup); // the backup: epoch 1
        for (int i = 0; i < 6; i++) {
            assertThat(sync(dir).status()).isEqualTo(RunStatus.SUCCEEDED);
        }
        assertThat(leaseEpoch(dir)).isEqualTo(7);
        Files.copy(backup, dir.resolve("leasesync.mv.db"), StandardCopyOption.REPLACE_EXISTING); // restored

        RunResult first = sync(dir, "written-after-the-restore");
        assertThat(first.status()).isEqualTo(RunStatus.FAILED);
        assertThat(first.message().orElseThrow())
                .contains("this device's lease epoch 2 for alice|course_sync was behind the fencing token the sync "
                        + "server has already seen from it")
                .contains("the epoch was raised to 8"); // one past the highest token the server saw: 7
        assertThat(leaseEpoch(dir)).isEqualTo(8);

        RunResult second = sync(dir);
        assertThat(second.status()).as(second.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().changesApplied())
                .as("the edit made on the restored copy")
                .isEqualTo(1);
        assertThat(sync(dir).status()).isEqualTo(RunStatus.SUCCEEDED);
    }
}
