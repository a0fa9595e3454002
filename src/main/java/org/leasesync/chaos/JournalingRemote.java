package org.leasesync.chaos;

import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushStatus;
import org.leasesync.sync.SyncRemote;

/**
 * The remote port with crash points around the requests: before a pull is sent, and after a push
 * was answered but before the answer is written locally ("push sent, checkpoint not yet written").
 * Thread-safe as the delegate is.
 */
final class JournalingRemote implements SyncRemote {

    private final SyncRemote delegate;
    private final CrashPoints points;

    JournalingRemote(SyncRemote delegate, CrashPoints points) {
        this.delegate = delegate;
        this.points = points;
    }

    @Override
    public PullPage pull(
            TaskKey key,
            Optional<String> cursor,
            Optional<String> pushedPosition,
            int limit,
            long fencingToken,
            String runId) {
        points.reached("pull.requesting", key, fencingToken);
        return delegate.pull(key, cursor, pushedPosition, limit, fencingToken, runId);
    }

    @Override
    public PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId) {
        PushResponse r = delegate.push(key, batch, fencingToken, runId);
        points.reached("push.answered", key, fencingToken);
        return r;
    }

    @Override
    public PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
        return delegate.pushStatus(key, idempotencyKey, runId);
    }
}
