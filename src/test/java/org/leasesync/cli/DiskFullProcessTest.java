package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushBatch;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.ProcessTest;

/**
 * The disk fills up while a real {@code leasesync} process writes an outbox entry or a pulled page
 * with its checkpoint: on a small tmpfs (needs {@code mount}, i.e. root with CAP_SYS_ADMIN, as in CI, where a
 * failed mount fails the test; skipped only for a non-root developer — {@code store.FullDiskTest}
 * covers the same at the JDBC boundary everywhere). The
 * command fails (exit 1) saying the disk is full, and no outbox entry is lost.
 */
@ProcessTest
class DiskFullProcessTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    Path fs;
    Path data;
    Path file;
    Path filler;

    @BeforeEach
    void mountASmallFileSystem() throws Exception {
        fs = Files.createDirectory(tmp.resolve("fs"));
        Process mount = new ProcessBuilder(
                        "mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "leasesync-test", fs.toString())
                .redirectErrorStream(true)
                .start();
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        String why =
                "cannot mount a small tmpfs here (needs root with CAP_SYS_ADMIN): " + new String(readQuietly(mount));
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat(mounted).as(why).isTrue(); // CI runs as root: a failed mount is a failure, never a skip
        }
        assumeTrue(mounted, why);
        data = fs.resolve("data");
        file = data.resolve("leasesync.mv.db");
        filler = fs.resolve("filler");
        try (LocalStore store = LocalStore.openFile(data)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            for (int i = 0; i < 3; i++) {
                edits.addEdit(ALICE, "mine-" + i, "{\"title\":\"edit " + i + "\"}", false);
            }
        }
    }

    @AfterEach
    void unmount() throws Exception {
        if (fs != null && Files.isDirectory(fs)) {
            new ProcessBuilder("umount", fs.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static byte[] readQuietly(Process p) {
        try {
            return p.getInputStream().readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }

    /** Fills the file system, then frees {@code leaveBytes} so that opening still works. */
    void fillDiskLeaving(int leaveBytes) throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler, StandardOpenOption.CREATE_NEW)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            // the disk is full now
        }
        try (var ch = java.nio.channels.FileChannel.open(filler, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - leaveBytes);
        }
    }

    List<String> outboxRecordIds() {
        try (LocalStore store = LocalStore.openFile(data)) {
            return new JdbcLocalEdits(store.database(), TimeSource.system())
                    .outbox(ALICE).stream()
                            .map(JdbcLocalEdits.OutboxItem::recordId)
                            .toList();
        }
    }

    @Test
    void anEditOnAFullDiskFailsSayingSoAndTheEarlierEditsAreKept() throws Exception {
        fillDiskLeaving(64 * 1024);
        String big = "{\"title\":\"" + "y".repeat(100_000) + "\"}";
        CliProcess.Result r = CliProcess.start(
                        tmp,
                        "edit",
                        List.of(
                                "edit",
                                "--user",
                                "alice",
                                "--scope",
                                "course_sync",
                                "--id",
                                "big",
                                "--payload",
                                big,
                                "--data-dir",
                                data.toString()))
                .await(60);

        assertThat(r.code()).as(r.both()).isEqualTo(1);
        assertThat(r.err())
                .startsWith("leasesync: could not add a local edit of big for alice|course_sync in " + file
                        + ": the disk is full (No space left on device)")
                .contains("nothing of this step was saved")
                .doesNotContain("\tat ");
        Files.delete(filler);
        assertThat(outboxRecordIds()).containsExactly("mine-0", "mine-1", "mine-2");
    }

    @Test
    void aSyncWhosePulledPageDoesNotFitFailsSayingSoAndNothingIsLostOrAppliedTwice() throws Exception {
        ReferenceServer server = ReferenceServer.start(ServerConfig.defaults());
        try {
            // another device stored two large records: the first pull brings ~600 KB
            HttpSyncRemote other = new HttpSyncRemote(
                    server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::tokenFor, "other-device");
            for (int i = 0; i < 2; i++) {
                other.push(
                        ALICE,
                        new PushBatch(
                                "b" + i,
                                UUID.randomUUID().toString(),
                                List.of(new OutboxEntry(
                                        1,
                                        UUID.randomUUID().toString(),
                                        "big-" + i,
                                        0,
                                        false,
                                        "{\"title\":\"" + "z".repeat(300_000) + "\"}",
                                        java.time.Instant.EPOCH))),
                        1,
                        "other");
            }
            fillDiskLeaving(64 * 1024);
            List<String> sync = List.of(
                    "sync",
                    "--user",
                    "alice",
                    "--scope",
                    "course_sync",
                    "--server",
                    server.baseUrl(),
                    "--token",
                    server.tokenFor("alice"),
                    "--data-dir",
                    data.toString());
            CliProcess.Result r = CliProcess.start(tmp, "sync", sync).await(90);

            assertThat(r.code())
                    .as("failed, not needs attention (4): " + r.both())
                    .isEqualTo(1);
            assertThat(r.out())
                    .startsWith("alice|course_sync sync failed: could not ")
                    .contains(" in " + file + ": the disk is full (No space left on device)");
            assertThat(r.err()).doesNotContain("\tat ");
            assertThat(server.stats().pushes())
                    .as("nothing pushed after the failed pull")
                    .isEqualTo(2);

            Files.delete(filler);
            assertThat(outboxRecordIds()).containsExactly("mine-0", "mine-1", "mine-2");
            CliProcess.Result again = CliProcess.start(tmp, "again", sync).await(90);
            assertThat(again.code()).as(again.both()).isZero();
            assertThat(outboxRecordIds()).as(again.both()).isEmpty();
            assertThat(server.stats().appliedIn("alice", "course_sync").values())
                    .as("each change applied once")
                    .containsOnly(1);
            assertThat(server.stats().appliedIn("alice", "course_sync")).hasSize(5);
        } finally {
            server.close();
        }
    }
}
