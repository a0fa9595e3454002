package org.leasesync.sync;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.desktop.ScheduleTrigger;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.StartCheck;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;

/**
 * A headless "window" for process tests: the client runtime with the window's timer
 * ({@link ScheduleTrigger}) and background-trigger rule, as {@code AppAssembly} wires them, for
 * alice's three keys. Prints {@code tick SCOPE started|joined|skipped} per key and tick, stops the
 * timer after the given time, waits for its runs, prints {@code idle}, and closes and exits 0 once a
 * line (or the end) arrives on its standard input.
 *
 * <p>Arguments: data dir, server URL, alice's token, interval millis, run-for millis, wall-clock offset
 * millis (this process's wall clock runs that much ahead; negative: behind).
 */
public final class ScheduleWindowMain {

    private ScheduleWindowMain() {}

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        Duration interval = Duration.ofMillis(Long.parseLong(args[3]));
        long runForMs = Long.parseLong(args[4]);
        Duration wallOffset = Duration.ofMillis(Long.parseLong(args[5]));
        TimeSource system = TimeSource.system();
        TimeSource time = TimeSource.system(Clock.offset(Clock.systemUTC(), wallOffset));
        try (ClientRuntime rt = ClientRuntime.open(new ClientConfig(
                data,
                args[1],
                Map.of("alice", args[2]),
                Duration.ofSeconds(60),
                HttpSettings.DEFAULT,
                SyncSettings.DEFAULT,
                RetryPolicy.NONE,
                time))) {
            StartCheck rule = rt.recentSyncs().backgroundTriggers(interval, Duration.ofMinutes(1));
            rt.coordinator().setStartCheck(rule);
            ExecutorService actions = Executors.newSingleThreadExecutor(); // the window's ui-actions thread
            ScheduleTrigger timer = new ScheduleTrigger(
                    rt.timer(),
                    interval,
                    () -> actions.execute(() -> {
                        for (Scope s : Scope.values()) {
                            TaskKey key = new TaskKey("alice", s);
                            String what;
                            if (rule.skipReason(TriggerRequest.of(key, TaskSource.SCHEDULE))
                                    .isPresent()) {
                                what = "skipped";
                            } else {
                                SubmitResult r = rt.coordinator().submit(TriggerRequest.of(key, TaskSource.SCHEDULE));
                                what = r instanceof SubmitResult.Started
                                        ? "started"
                                        : r instanceof SubmitResult.Skipped ? "skipped" : "joined";
                            }
                            System.out.println("tick " + s.wireName() + " " + what);
                        }
                    }));
            System.out.println("ready pid " + ProcessHandle.current().pid() + " wall " + time.now() + " clock "
                    + system.monotonicClockId().orElse("?"));
            timer.start();
            Thread.sleep(runForMs);
            timer.close();
            actions.shutdown();
            actions.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!rt.coordinator().localRuns().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            // Both windows close only once neither syncs any more: the one hosting the shared file
            // closing under the other's sync is the host handover, not the schedule this test is about.
            System.out.println("idle");
            System.in.read();
            System.out.println("done");
        }
        System.exit(0);
    }
}
