package org.leasesync.desktop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.StartCheck;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.sync.RecentSyncGate;

/**
 * The background triggers' {@link StartCheck}: whether the key synced moments ago, in this window or
 * another one on the data directory ({@link RecentSyncGate}), judged by the schedule and foreground
 * intervals in force. The coordinator asks it with the lease granted, so two windows cannot both sync;
 * the triggers ask it beforehand, so an unnecessary one takes no lease. The settings dialog replaces
 * the intervals while the window runs, so this delegates to the check of the current ones; it is its
 * own class because that replaceable check is one job, apart from the wiring of the window and of the tray process.
 *
 * <p>Thread-safe: the intervals are replaced on the FX thread and read on the coordinator's threads.
 */
public final class BackgroundCheck implements StartCheck {

    private final RecentSyncGate recentSyncs;
    private final AtomicReference<StartCheck> inForce = new AtomicReference<>();

    public BackgroundCheck(RecentSyncGate recentSyncs, Duration scheduleInterval, Duration foregroundMinInterval) {
        this.recentSyncs = recentSyncs;
        setIntervals(scheduleInterval, foregroundMinInterval);
    }

    /** From now on, judges by these intervals. */
    public void setIntervals(Duration scheduleInterval, Duration foregroundMinInterval) {
        inForce.set(recentSyncs.backgroundTriggers(scheduleInterval, foregroundMinInterval));
    }

    /** The check of the intervals in force. */
    public StartCheck inForce() {
        return inForce.get();
    }

    /** Whether a trigger of {@code source} should sync {@code key} now (no recent sync makes it unnecessary). */
    public boolean due(TaskKey key, TaskSource source) {
        return skipReason(TriggerRequest.of(key, source)).isEmpty();
    }

    @Override
    public Optional<String> skipReason(TriggerRequest request) {
        return inForce.get().skipReason(request);
    }

    @Override
    public boolean asks(TriggerRequest request) {
        return inForce.get().asks(request);
    }
}
