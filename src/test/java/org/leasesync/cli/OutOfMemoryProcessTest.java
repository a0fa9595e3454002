package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.ExitOnFatalError;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * A real process whose run meets a real {@link OutOfMemoryError} does not limp on
 * with the key held: the run is recorded as failed, its lease is released, one plain line says why,
 * and the process exits with status 1 — so the next process takes the key at once.
 */
@ProcessTest
class OutOfMemoryProcessTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    @TempDir
    Path dir;

    @Test
    void aRunOutOfMemoryEndsAsFailedReleasesItsLeaseAndTheProcessExitsWithALoggedLine() throws Exception {
        Path out = dir.resolve("child.txt");
        Process child = JavaProcess.start(OutOfMemoryRunMain.class, out, dir.toString());
        assertThat(child.waitFor(60, TimeUnit.SECONDS))
                .as("the process ended by itself")
                .isTrue();
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(output).isEqualTo(ExitOnFatalError.EXIT_STATUS);
        assertThat(output)
                .contains("STARTED")
                .contains("leasesync: stopping: out of memory (OutOfMemoryError: Java heap space) — the run was ended "
                        + "and its lease released; start leasesync again");
        String log = org.leasesync.testing.LogFiles.read(dir);
        assertThat(log)
                .contains("leasesync stops after a fatal error: out of memory (OutOfMemoryError: Java heap space)");

        try (LocalStore store = LocalStore.openFile(dir)) {
            LeaseRecord lease = store.leases().read(KEY).orElseThrow();
            assertThat(lease.isHeld()).as("lease released before the exit").isFalse();
            RunRecord run = store.history().lastRun(KEY).orElseThrow();
            assertThat(run.status()).contains(RunStatus.FAILED);
            assertThat(run.error()).contains("out of memory (OutOfMemoryError: Java heap space)");
        }
    }
}
