package org.leasesync.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.ExitOnFatalError;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushStatus;
import org.leasesync.sync.SyncRemote;
import org.leasesync.sync.SyncSettings;

/**
 * A child process for {@link OutOfMemoryProcessTest}: a client runtime wired as the window wires
 * it ({@link ExitOnFatalError}), whose sync run meets a real {@link OutOfMemoryError} on its worker
 * thread (its pull allocates more than the heap). Prints {@code STARTED} after submitting; the
 * process must then end by itself. Exit code 7 means it did not.
 */
public final class OutOfMemoryRunMain {

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        LoggingSetup.addFileLog(dir);
        ClientConfig config = new ClientConfig(
                dir,
                "http://127.0.0.1:9",
                Map.of("alice", "t"),
                Duration.ofSeconds(30),
                new HttpSettings(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(10)),
                SyncSettings.DEFAULT,
                RetryPolicy.NONE,
                TimeSource.system());
        ExitOnFatalError onFatal = ExitOnFatalError.forThisProcess();
        ClientRuntime rt = ClientRuntime.open(
                config,
                LocalStore.openFile(dir),
                new ClientRuntime.Ports(UnaryOperator.identity(), remote -> new Hungry(), UnaryOperator.identity()),
                onFatal);
        onFatal.closing(rt);
        rt.coordinator().submit(TaskKey.of("alice", "course_sync"), TaskSource.MANUAL);
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(60_000);
        System.exit(7);
    }

    /** A remote whose pull asks for more memory than the heap has. */
    static final class Hungry implements SyncRemote {
        @Override
        public PullPage pull(
                TaskKey key,
                Optional<String> cursor,
                Optional<String> pushedPosition,
                int limit,
                long fencingToken,
                String runId) {
            long max = Runtime.getRuntime().maxMemory();
            byte[] tooBig = new byte[(int) Math.min(Integer.MAX_VALUE - 16, max + (64L << 20))];
            throw new IllegalStateException("allocated " + tooBig.length + " bytes");
        }

        @Override
        public PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
            throw new UnsupportedOperationException();
        }
    }
}
