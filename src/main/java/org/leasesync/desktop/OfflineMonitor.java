package org.leasesync.desktop;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.ServerProbe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells "the server cannot be reached" apart from other failures, and notices when it can be
 * reached again. A failed sync makes it {@link #suspect()} the server: it probes every URL at once
 * ({@link ServerProbe}); when none answers the app is offline, and it probes again after a backoff
 * that starts at {@code firstRetry} and doubles up to {@code maxRetry} (so a sync starts at most
 * {@code maxRetry} after the server is back). The first probe that reaches a server ends the
 * offline state and calls {@link Listener#backOnline()}. A successful sync ends it too
 * ({@link #reachedServer()}).
 *
 * <p>Thread-safe. Probes run on the injected single-thread scheduler (named {@code server-probe}),
 * never on the FX thread or the lease timer; each blocks at most the probe's timeout per URL.
 */
public final class OfflineMonitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OfflineMonitor.class);

    /** What the window hears. Called on the probe thread. */
    public interface Listener {
        /** The server cannot be reached; the next probe is at {@code nextTry} (wall clock, for display). */
        void offline(Instant nextTry);

        /** A server answered again after being offline. */
        void backOnline();

        /** A listener told the next probe's time while offline, and empty when back online. */
        static Listener of(java.util.function.Consumer<java.util.Optional<Instant>> change) {
            return new Listener() {
                @Override
                public void offline(Instant nextTry) {
                    change.accept(java.util.Optional.of(nextTry));
                }

                @Override
                public void backOnline() {
                    change.accept(java.util.Optional.empty());
                }
            };
        }
    }

    private final Supplier<ServerProbe.Result> probe;
    private final ScheduledExecutorService scheduler;
    private final TimeSource time;
    private final Duration firstRetry;
    private final Duration maxRetry;
    private final Listener listener;
    private ScheduledFuture<?> pending;
    private boolean probing;
    private int failedProbes;
    private Optional<Instant> nextTry = Optional.empty();
    private boolean closed;

    /**
     * @param probe one probe of every server URL (blocks)
     * @param firstRetry the first wait after a probe found no server
     * @param maxRetry the longest wait between probes (the backoff's bound)
     * @throws IllegalArgumentException if the waits are not positive or {@code maxRetry < firstRetry}
     */
    public OfflineMonitor(
            Supplier<ServerProbe.Result> probe,
            ScheduledExecutorService scheduler,
            TimeSource time,
            Duration firstRetry,
            Duration maxRetry,
            Listener listener) {
        if (firstRetry.isZero() || firstRetry.isNegative() || maxRetry.compareTo(firstRetry) < 0) {
            throw new IllegalArgumentException(
                    "offline probe backoff must be 0 < first <= max, got first " + firstRetry + ", max " + maxRetry);
        }
        this.probe = Objects.requireNonNull(probe);
        this.scheduler = Objects.requireNonNull(scheduler);
        this.time = Objects.requireNonNull(time);
        this.firstRetry = firstRetry;
        this.maxRetry = maxRetry;
        this.listener = Objects.requireNonNull(listener);
    }

    /** When offline: the next probe (wall clock). Empty when the server is not known to be unreachable. */
    public synchronized Optional<Instant> nextTry() {
        return nextTry;
    }

    /** A sync failed: probe now, unless a probe is running or the app is already known to be offline. */
    public synchronized void suspect() {
        if (closed || probing || nextTry.isPresent()) {
            return;
        }
        schedule(Duration.ZERO);
    }

    /**
     * What a finished run says about the server: a failure makes it suspect ({@link #suspect()}), a
     * success means it answered ({@link #reachedServer()}). Other events change nothing.
     *
     * @return whether the run succeeded (the server is reachable)
     */
    public boolean runEnded(org.leasesync.run.RunEvent e) {
        if (e.kind() != org.leasesync.run.RunEvent.Kind.FINISHED) {
            return false;
        }
        org.leasesync.run.RunStatus st = e.result().map(r -> r.status()).orElse(null);
        if (st == org.leasesync.run.RunStatus.FAILED) {
            suspect();
        } else if (st == org.leasesync.run.RunStatus.SUCCEEDED) {
            reachedServer();
            return true;
        }
        return false;
    }

    /** A sync reached the server: the app is not offline (pending probes are cancelled). */
    public void reachedServer() {
        boolean was;
        synchronized (this) {
            was = nextTry.isPresent();
            nextTry = Optional.empty();
            failedProbes = 0;
            if (pending != null && !probing) {
                pending.cancel(false);
            }
        }
        if (was) {
            log.info("the sync server answered a sync; no longer offline");
        }
    }

    private void schedule(Duration delay) {
        pending = scheduler.schedule(this::runProbe, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void runProbe() {
        synchronized (this) {
            if (closed) {
                return;
            }
            probing = true;
        }
        ServerProbe.Result r;
        try {
            r = probe.get();
        } catch (RuntimeException e) {
            r = new ServerProbe.Result(false, e.toString());
        }
        boolean back;
        Instant next = null;
        synchronized (this) {
            probing = false;
            if (closed) {
                return;
            }
            back = r.reachable() && nextTry.isPresent();
            if (r.reachable()) {
                nextTry = Optional.empty();
                failedProbes = 0;
            } else {
                Duration wait = backoff(failedProbes++);
                next = time.now().plus(wait);
                nextTry = Optional.of(next);
                schedule(wait);
            }
        }
        if (next != null) {
            log.info("the sync server cannot be reached ({}); offline, next try at {}", r.detail(), next);
            listener.offline(next);
        } else if (back) {
            log.info("the sync server can be reached again ({}); syncing", r.detail());
            listener.backOnline();
        }
    }

    /** The wait after the {@code n}-th failed probe in a row (0-based): first, doubled, at most max. */
    Duration backoff(int n) {
        Duration d = firstRetry;
        for (int i = 0; i < n && d.compareTo(maxRetry) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxRetry) > 0 ? maxRetry : d;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (pending != null) {
            pending.cancel(false);
        }
    }
}
