package org.leasesync.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.LocalData;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.ResyncSummary;

/**
 * The local database port with every guarded write journaled: {@code write} (committed) or
 * {@code write-refused} (fenced off), each with the monotonic time it began, so the checker can
 * prove that no write began after a newer epoch of its key had been granted. Crash points follow
 * the writes that end a stage step. Thread-safe as the delegate is.
 */
final class JournalingLocalData implements LocalData {

    private final LocalData delegate;
    private final Journal journal;
    private final CrashPoints points;

    JournalingLocalData(LocalData delegate, Journal journal, CrashPoints points) {
        this.delegate = delegate;
        this.journal = journal;
        this.points = points;
    }

    @Override
    public List<OutboxEntry> pendingOutbox(TaskKey key, int limit) {
        return delegate.pendingOutbox(key, limit);
    }

    @Override
    public int pendingCount(TaskKey key) {
        return delegate.pendingCount(key);
    }

    @Override
    public List<OutboxEntry> outboxEntries(TaskKey key, List<String> changeIds) {
        return delegate.outboxEntries(key, changeIds);
    }

    @Override
    public void applyPullPage(Fence fence, String runId, PullPage page) {
        guarded(fence, runId, "apply-pull-page", () -> {
            delegate.applyPullPage(fence, runId, page);
            return null;
        });
        points.reached("pull.applied", fence.taskKey(), fence.epoch());
    }

    @Override
    public void beginPush(Fence fence, String runId, PushBatch batch) {
        guarded(fence, runId, "begin-push", () -> {
            delegate.beginPush(fence, runId, batch);
            return null;
        });
        points.reached("push.checkpointed", fence.taskKey(), fence.epoch());
    }

    @Override
    public void confirmPush(Fence fence, String runId, PushBatch batch, PushResponse response) {
        guarded(fence, runId, "confirm-push", () -> {
            delegate.confirmPush(fence, runId, batch, response);
            return null;
        });
        points.reached("push.confirmed", fence.taskKey(), fence.epoch());
    }

    @Override
    public boolean rejectEntry(Fence fence, String runId, OutboxEntry entry, String reason) {
        return guarded(fence, runId, "reject-entry", () -> delegate.rejectEntry(fence, runId, entry, reason));
    }

    @Override
    public void markDone(Fence fence, String runId) {
        guarded(fence, runId, "mark-done", () -> {
            delegate.markDone(fence, runId);
            return null;
        });
        points.reached("run.done", fence.taskKey(), fence.epoch());
    }

    @Override
    public void resetForResync(Fence fence, String runId, String reason) {
        guarded(fence, runId, "reset-for-resync", () -> {
            delegate.resetForResync(fence, runId, reason);
            return null;
        });
    }

    @Override
    public Optional<ResyncSummary> finishResync(Fence fence, String runId) {
        return guarded(fence, runId, "finish-resync", () -> delegate.finishResync(fence, runId));
    }

    @Override
    public Optional<String> pushedPosition(TaskKey key) {
        return delegate.pushedPosition(key);
    }

    @Override
    public void discardInFlight(Fence fence, String runId) {
        guarded(fence, runId, "discard-in-flight", () -> {
            delegate.discardInFlight(fence, runId);
            return null;
        });
    }

    @Override
    public Optional<String> pullCursor(TaskKey key) {
        return delegate.pullCursor(key);
    }

    private <T> T guarded(Fence fence, String runId, String op, Supplier<T> write) {
        long began = System.nanoTime();
        try {
            T result = write.get();
            journal.write(writeEvent("write", fence, runId, op, began));
            return result;
        } catch (LeaseLostException e) {
            journal.write(writeEvent("write-refused", fence, runId, op, began));
            throw e;
        }
    }

    private ObjectNode writeEvent(String type, Fence fence, String runId, String op, long beganMono) {
        ObjectNode e = journal.event(type);
        e.put("key", fence.taskKey().asString());
        e.put("epoch", fence.epoch());
        e.put("run", runId);
        e.put("op", op);
        e.put("began", beganMono);
        return e;
    }
}
