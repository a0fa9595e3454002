package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * The sync server restored from an older backup (same database id, lower
 * sequence). The smallest input, with three real client stacks against a real, file-backed
 * reference server whose files are copied back: the server is backed up after a first sync; device
 * Y edits a record and adds one, device X pulls both and edits two records; the backup is restored;
 * device Z edits the same record and adds one. Before the fix X never got Z's record and kept Y's
 * lost ones; now X and Y notice that the data went back, download everything again, drop what the
 * server no longer has, keep their outbox, and say so in their history; an edit based on a version
 * the restored server gave to other content becomes a conflict instead of overwriting it. Client
 * stores on H2 here, on PostgreSQL in a subclass.
 */
class ServerRestoreSyncTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    @TempDir
    Path serverDir;

    @TempDir
    Path backupDir;

    ReferenceServer server;
    int port;
    LocalStore storeX;
    LocalStore storeY;
    LocalStore storeZ;
    ClientStack x;
    ClientStack y;
    ClientStack z;

    /** A fresh local store (a device); PostgreSQL in the subclass. */
    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults().withDataDir(serverDir));
        port = server.port();
        Map<String, String> tokens = Map.of("alice", server.tokenFor("alice"));
        storeX = openStore();
        storeY = openStore();
        storeZ = openStore();
        x = new ClientStack(storeX, server.baseUrl(), tokens);
        y = new ClientStack(storeY, server.baseUrl(), tokens);
        z = new ClientStack(storeZ, server.baseUrl(), tokens);
    }

    @AfterEach
    void tearDown() {
        for (AutoCloseable c : new AutoCloseable[] {x, y, z, storeX, storeY, storeZ, server}) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort
            }
        }
    }

    @Test
    void devicesNoticeTheRestoreDownloadEverythingAgainKeepTheirOutboxAndSaySoInTheirHistory() throws Exception {
        synced(x);
        synced(y);
        restartServer(() -> copyFiles(serverDir, backupDir)); // the backup, after a first sync

        y.edits.addEdit(KEY, "course-1", "{\"title\":\"Y's edit, lost in the restore\"}", false);
        y.edits.addEdit(KEY, "course-y", "{\"title\":\"Y's record, lost in the restore\"}", false);
        synced(y);
        synced(x);
        assertThat(x.edits.record(KEY, "course-1").orElseThrow().version()).isEqualTo(2);
        assertThat(x.edits.record(KEY, "course-y")).isPresent();
        x.edits.addEdit(KEY, "course-1", "{\"title\":\"X's edit of Y's version\"}", false); // based on v2
        x.edits.addEdit(KEY, "course-2", "{\"title\":\"X's edit\"}", false); // based on v1

        restartServer(() -> copyFiles(backupDir, serverDir)); // the restore
        synced(z); // a new device
        z.edits.addEdit(KEY, "course-1", "{\"title\":\"Z's edit after the restore\"}", false);
        z.edits.addEdit(KEY, "course-z", "{\"title\":\"Z's record\"}", false);
        synced(z); // the server gives v2 of course-1 to Z

        RunResult xRun = synced(x);
        assertThat(xRun.message())
                .hasValueSatisfying(m -> assertThat(m)
                        .startsWith(
                                "Downloaded everything again because the server's data went back to an earlier state")
                        .contains("1 record removed, 1 changed, 1 new")
                        .contains("your 2 unsent edits are kept (1 is now a conflict to resolve"));
        assertThat(ids(x)).contains("course-z").doesNotContain("course-y");
        assertThat(x.edits.record(KEY, "course-1").orElseThrow().payloadJson()).contains("Z's edit");
        JdbcLocalEdits.OutboxItem conflict = x.edits.outbox(KEY).stream()
                .filter(i -> i.recordId().equals("course-1"))
                .findFirst()
                .orElseThrow();
        assertThat(conflict.isConflict())
                .as("X's edit of the lost v2 must not overwrite Z's v2")
                .isTrue();
        assertThat(conflict.serverVersion()).isEqualTo(2);
        assertThat(conflict.serverPayloadJson()).contains("Z's edit");
        assertThat(x.edits.record(KEY, "course-2").orElseThrow().payloadJson())
                .as("pending edit pushed")
                .contains("X's edit");
        RunRecord history = storeX.history().history(KEY, 1).get(0);
        assertThat(history.error())
                .as("the history says it in plain words")
                .hasValueSatisfying(m -> assertThat(m).contains("went back to an earlier state"));

        // Y's cursor is from before its own push; its push position tells the server it went back.
        RunResult yRun = synced(y);
        assertThat(yRun.message())
                .hasValueSatisfying(
                        m -> assertThat(m)
                                .contains("went back to an earlier state")
                                .contains(
                                        "1 record removed, 2 changed, 1 new; the server no longer has 2 edits this device had sent"));
        assertThat(ids(y)).contains("course-z", "course-2").doesNotContain("course-y");
        assertThat(y.edits.record(KEY, "course-1").orElseThrow().payloadJson()).contains("Z's edit");

        // Z and the server: Z's version of course-1 was never overwritten.
        synced(z);
        assertThat(z.edits.record(KEY, "course-1").orElseThrow().payloadJson()).contains("Z's edit");
        assertThat(ids(z)).containsExactlyInAnyOrderElementsOf(ids(x));

        RunResult quiet = synced(x);
        assertThat(quiet.message()).as("the next sync has nothing to say").isEmpty();
    }

    @Test
    void aDeviceThatOnlyPushedAfterTheBackupNoticesTheRestoreThroughItsPushPosition() throws Exception {
        synced(y);
        restartServer(() -> copyFiles(serverDir, backupDir));
        y.edits.addEdit(KEY, "course-lost", "{\"title\":\"written after the backup\"}", false);
        synced(y); // pulls (nothing), then pushes: its cursor stays older
        restartServer(() -> copyFiles(backupDir, serverDir));

        RunResult r = synced(y);

        assertThat(r.message())
                .hasValue("Downloaded everything again because the server's data went back to an earlier"
                        + " state (restored from a backup?): 1 record removed; the server no longer has an edit this device had sent"
                        + " (make it again if still needed).");
        assertThat(ids(y)).doesNotContain("course-lost");
        assertThat(y.edits.outbox(KEY)).isEmpty();
    }

    @Test
    void aDataDirectoryPointedAtAnotherServerDownloadsItsDataAndNeverPushesOverItsRecordsBlindly() throws Exception {
        synced(x);
        x.edits.addEdit(KEY, "course-1", "{\"title\":\"X's version 2 on server A\"}", false);
        synced(x);
        x.edits.addEdit(KEY, "course-1", "{\"title\":\"X's edit of its version 2\"}", false); // pending, base 2
        try (ReferenceServer b = ReferenceServer.start(ServerConfig.defaults());
                LocalStore wStore = LocalStore.openInMemory();
                ClientStack w = new ClientStack(wStore, b.baseUrl(), Map.of("alice", b.tokenFor("alice")))) {
            synced(w);
            w.edits.addEdit(KEY, "course-1", "{\"title\":\"W's version 2 on server B\"}", false);
            synced(w);
            x.close();
            x = new ClientStack(storeX, b.baseUrl(), Map.of("alice", b.tokenFor("alice"))); // same data dir, server B

            RunResult r = synced(x);

            assertThat(r.message())
                    .hasValueSatisfying(m -> assertThat(m)
                            .startsWith("Downloaded everything again because"
                                    + " the server's data comes from another database than before")
                            .contains("1 is now a conflict"));
            assertThat(x.edits.record(KEY, "course-1").orElseThrow().payloadJson())
                    .contains("W's version 2");
            assertThat(x.edits.outbox(KEY))
                    .singleElement()
                    .satisfies(e -> assertThat(e.isConflict()).isTrue());
            synced(w);
            assertThat(w.edits.record(KEY, "course-1").orElseThrow().payloadJson())
                    .as("B's record not overwritten")
                    .contains("W's version 2");
        }
    }

    RunResult synced(ClientStack device) throws Exception {
        RunResult r = device.sync(KEY, TaskSource.MANUAL);
        assertThat(r.status()).as("%s", r).isEqualTo(RunStatus.SUCCEEDED);
        return r;
    }

    static java.util.List<String> ids(ClientStack device) {
        return device.edits.records(KEY).stream()
                .filter(r -> !r.deleted())
                .map(JdbcLocalEdits.LocalRecord::id)
                .toList();
    }

    /** Stops the server, runs {@code whileStopped}, starts it again on the same port and data. */
    void restartServer(Runnable whileStopped) {
        server.close();
        whileStopped.run();
        server = ReferenceServer.start(
                ServerConfig.defaults().withDataDir(serverDir).withPort(port));
        ClientStack.HTTP.connectionPool().evictAll();
    }

    static void copyFiles(Path from, Path to) {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
