package org.leasesync.sync;

import java.util.Optional;
import org.leasesync.registry.TaskKey;

/**
 * The sync server, as the worker needs it (protocol v1, docs/protocol.md). Implemented by the
 * {@code remote} package over HTTP.
 *
 * <p>Implementations are thread-safe; every method blocks on the network and never retries a
 * push on its own.
 */
public interface SyncRemote {

    /**
     * Changes after {@code cursor}.
     *
     * @param runId sent as {@code Sync-Run-Id} for the server's diagnosis
     * @throws RemoteException on any failure (pulls are safe to repeat)
     */
    PullPage pull(TaskKey key, Optional<String> cursor, int limit, String runId);

    /**
     * Sends a batch with its idempotency key and the run's fencing token.
     *
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
