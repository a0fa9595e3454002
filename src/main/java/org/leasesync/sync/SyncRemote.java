package org.leasesync.sync;

import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * The sync server, as the worker needs it (protocol v1, docs/protocol.md). Implemented by the
 * {@code remote} package over HTTP.
 *
 * <p>Implementations are thread-safe; every method blocks on the network and never retries a
 * push on its own.
 */
public interface SyncRemote {

    /**
     * Changes after {@code cursor}, fenced by the run's fencing token like a push: the server
     * records the token, so a stale run's later push is refused once a successor has pulled. The
     * server also checks {@code pushedPosition}, the {@link PushResponse#position()} of this
     * device's latest applied push: a server whose data went back to before that push refuses the
     * pull with {@code 400 invalid_cursor} (reason {@code went_back}), even when the cursor itself is
     * older than the push.
     *
     * @param fencingToken the run's epoch, sent as {@code Fencing-Token} with this device's client id
     * @param runId sent as {@code Sync-Run-Id} for the server's diagnosis
     * @throws RemoteException on any failure (pulls are safe to repeat); status 409 with code
     *     {@code stale_fencing_token} when the server has seen a higher token (nothing was returned);
     *     status 400 with code {@code invalid_cursor} when the client must download everything again
     *     ({@link RemoteException#reason()} says why)
     */
    PullPage pull(
            TaskKey key,
            Optional<String> cursor,
            Optional<String> pushedPosition,
            int limit,
            long fencingToken,
            String runId);

    /** {@link #pull(TaskKey, Optional, Optional, int, long, String)} without a push position. */
    default PullPage pull(TaskKey key, Optional<String> cursor, int limit, long fencingToken, String runId) {
        return pull(key, cursor, Optional.empty(), limit, fencingToken, runId);
    }

    /**
     * Sends a batch with its idempotency key and the run's fencing token.
     *
     * @throws UnsendableEntryException before sending anything, when an entry's stored payload is not
     *     a JSON object
     * @throws RemoteException {@link RemoteException.Kind#AMBIGUOUS} when the server may have applied it
     */
    PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId);

    /**
     * What the server knows about {@code idempotencyKey}.
     *
     * @throws RemoteException on any failure
     */
    PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId);
}
