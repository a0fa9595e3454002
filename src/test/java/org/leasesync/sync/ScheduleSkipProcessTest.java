package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Two real "windows" — processes with the window's timer — on one data directory, started together
 * as a user opening two windows would, one of them with its wall clock 3 h ahead: each key syncs
 * about once per interval instead of once per window, consecutive scheduled syncs of a key end at
 * least 80% of the interval apart on the machine's monotonic clock (whatever the wall clocks say),
 * and the skipped ticks are in the history.
 */
@ProcessTest
class ScheduleSkipProcessTest {

    private static final Duration INTERVAL = Duration.ofSeconds(2);
    private static final Duration RUN_FOR = INTERVAL.multipliedBy(10);

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    /** One run as stored: epoch order, status, end on the monotonic clock. */
    record Run(long epoch, String status, long endedMonoNs, String clock, String owner) {}

    @Test
    void twoWindowsOnOneDataDirectorySyncEachKeyAboutOncePerInterval() throws Exception {
        Path data = tmp.resolve("data");
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults())) {
            List<Process> windows = new ArrayList<>();
            String[] wallOffsets = {"0", Long.toString(Duration.ofHours(3).toMillis())};
            for (int i = 0; i < 2; i++) {
                windows.add(JavaProcess.start(
                        ScheduleWindowMain.class,
                        tmp.resolve("w" + i + ".out"),
                        data.toString(),
                        server.baseUrl(),
                        server.tokenFor("alice"),
                        Long.toString(INTERVAL.toMillis()),
                        Long.toString(RUN_FOR.toMillis()),
                        wallOffsets[i]));
            }
            // Closed together once both are idle, so that no sync runs while the file's host exits
            // (that handover has a test of its own, BrokenCommitTest).
            long idleBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!(idle(0) && idle(1))
                    && System.nanoTime() < idleBy
                    && windows.stream().allMatch(Process::isAlive)) {
                Thread.sleep(50);
            }
            for (Process w : windows) {
                try (var in = w.getOutputStream()) {
                    in.write('\n');
                } catch (java.io.IOException e) {
                    // exited already: its exit value says how
                }
            }
            for (int i = 0; i < 2; i++) {
                assertThat(windows.get(i).waitFor(120, TimeUnit.SECONDS))
                        .as(out(i))
                        .isTrue();
                assertThat(windows.get(i).exitValue()).as(out(i)).isZero();
            }
            assertThat(server.stats().runOverlaps()).isZero();
        }
        String clock = TimeSource.system().monotonicClockId().orElseThrow();
        long minGapNs = (long) (INTERVAL.toNanos() * RecentSyncGate.SCHEDULE_SHARE);
        try (LocalStore store = LocalStore.openFile(data)) {
            for (Scope s : Scope.values()) {
                TaskKey key = new TaskKey("alice", s);
                List<Run> runs = runs(store, key);
                long ticks = ticks(s, null);
                long skipped = ticks(s, "skipped");
                // the windows' output (their log included) says why a run did not end as succeeded
                assertThat(runs)
                        .as("%s: ticks %d; window 0:%n%s%nwindow 1:%n%s", key, ticks, out(0), out(1))
                        .allSatisfy(r -> {
                            assertThat(r.status()).isEqualTo("succeeded");
                            assertThat(r.clock()).isEqualTo(clock);
                        });
                for (int i = 1; i < runs.size(); i++) {
                    assertThat(runs.get(i).endedMonoNs() - runs.get(i - 1).endedMonoNs())
                            .as("%s: scheduled syncs %d and %d end at least 80%% of the interval apart", key, i - 1, i)
                            .isGreaterThanOrEqualTo(minGapNs);
                }
                // Two timers tick about 2 × 10 times; about one tick per interval syncs.
                assertThat(runs.size())
                        .as("%s: scheduled syncs of %d ticks", key, ticks)
                        .isBetween(3, (int) (RUN_FOR.toNanos() / minGapNs) + 2);
                assertThat((double) runs.size()).as("%s: syncs vs ticks", key).isLessThan(ticks * 0.75);
                List<TriggerSkip> recorded = new JdbcRecentSyncs(store.database()).skips(key, 1_000);
                assertThat(recorded)
                        .as("%s: every skipped tick is in the history", key)
                        .hasSize((int) skipped);
                assertThat(skipped).isPositive();
                assertThat(recorded)
                        .anySatisfy(sk -> assertThat(sk.reason())
                                .matches("skipped: synced \\d+ s ago by another process \\(pid \\d+\\)"));
                assertThat(recorded).allSatisfy(sk -> assertThat(sk.age()).isLessThan(INTERVAL));
            }
        }
    }

    private boolean idle(int i) {
        return out(i).lines().anyMatch("idle"::equals);
    }

    private String out(int i) {
        try {
            return Files.readString(tmp.resolve("w" + i + ".out"));
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** Ticks of both windows for the scope with the given outcome (null: all). */
    private long ticks(Scope s, String outcome) {
        long n = 0;
        for (int i = 0; i < 2; i++) {
            n += out(i).lines()
                    .filter(l -> l.startsWith("tick " + s.wireName() + " ")
                            && (outcome == null || l.endsWith(" " + outcome)))
                    .count();
        }
        return n;
    }

    private static List<Run> runs(LocalStore store, TaskKey key) {
        return store.database().query("read runs", c -> {
            List<Run> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT epoch, status, ended_mono_ns, mono_clock, owner_id"
                    + " FROM run WHERE task_key = ? AND first_source = 'schedule' ORDER BY epoch")) {
                ps.setString(1, key.asString());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Run(
                                rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5)));
                    }
                }
            }
            return out;
        });
    }
}
