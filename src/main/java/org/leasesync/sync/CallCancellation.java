package org.leasesync.sync;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Ends a run's network call as soon as the run may no longer write: the run is cancelled (the
 * window's Cancel, a SIGTERM, an account switch) or its lease is lost. Without it a call keeps the
 * run — and a stopping process — waiting for up to the call timeout, and a call started just after
 * a shutdown cancelled the calls in flight would not be cancelled at all.
 *
 * <p>{@link SyncWorker} opens a {@link Scope} on the run's thread, tied to the lease-lost signal; the
 * remote client {@linkplain #register registers} each call's cancel action for as long as the call
 * runs. A call registered after the signal fired is cancelled at once, before it is sent. On a thread
 * without a scope (tools, probes, tests) registering does nothing.
 *
 * <p>Thread-safe: the signal may fire on any thread while the run's thread registers.
 */
public final class CallCancellation {

    private static final ThreadLocal<Scope> CURRENT = new ThreadLocal<>();

    private CallCancellation() {}

    /**
     * Opens a scope on the calling thread that cancels its registered call when {@code stop}
     * completes (normally or not). Close it on the same thread when the run's work ends.
     */
    public static Scope open(CompletableFuture<?> stop) {
        Scope scope = new Scope();
        CURRENT.set(scope);
        stop.whenComplete((v, e) -> scope.fire());
        return scope;
    }

    /**
     * Registers the cancel action of the call the calling thread is about to make; runs it at once
     * when the thread's scope has already fired. Close the returned registration when the call ends.
     * Never blocks (the action must not either: OkHttp's {@code Call.cancel} does not).
     */
    public static Registration register(Runnable cancelCall) {
        Scope scope = CURRENT.get();
        if (scope == null) {
            return () -> {};
        }
        scope.current.set(cancelCall);
        if (scope.fired) {
            cancelCall.run();
        }
        return () -> scope.current.compareAndSet(cancelCall, null);
    }

    /** Whether the calling thread's scope has fired (false without a scope). */
    public static boolean fired() {
        Scope scope = CURRENT.get();
        return scope != null && scope.fired;
    }

    /** A registered call; closing it forgets the call (it ended). */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** A run's scope on its thread. */
    public static final class Scope implements AutoCloseable {
        private final AtomicReference<Runnable> current = new AtomicReference<>();
        private volatile boolean fired;

        private Scope() {}

        private void fire() {
            fired = true;
            Runnable r = current.getAndSet(null);
            if (r != null) {
                r.run();
            }
        }

        /** Leaves the scope: later calls on this thread are not tied to the run any more. */
        @Override
        public void close() {
            if (CURRENT.get() == this) {
                CURRENT.remove();
            }
        }
    }
}
