package org.leasesync.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * A clean stop on SIGTERM, SIGINT (Ctrl-C) and SIGHUP (logout, closed terminal): the given action
 * runs first — cancel the runs (each records "cancelled" and releases its lease), close the
 * database — and only then does the JVM exit, with 128 + the signal's number (143 for SIGTERM).
 *
 * <p>Why not a shutdown hook: the JVM starts all shutdown hooks at once, and H2's own hook closes
 * the local database (it cannot be told not to in automatic mixed mode), so the runs' last writes
 * would race it. A signal handler runs before the JVM begins to shut down. A second signal while
 * the action runs ends the process at once.
 *
 * <p>Thread-safe. Uses {@code sun.misc.Signal} (module {@code jdk.unsupported}, part of the runtime
 * image); on a JVM without it, or where the signal is reserved, nothing is installed and the JVM's
 * default applies.
 */
public final class StopSignals implements AutoCloseable {

    private static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");

    private final Runnable cleanStop;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final Map<Signal, SignalHandler> previous = new ConcurrentHashMap<>();

    private StopSignals(Runnable cleanStop) {
        this.cleanStop = cleanStop;
    }

    /**
     * Runs {@code cleanStop} on the first of these signals, then exits. {@link #close()} gives the
     * signals back to the handlers they had (the JVM's: exit at once).
     */
    public static StopSignals install(Runnable cleanStop) {
        StopSignals s = new StopSignals(cleanStop);
        for (String name : SIGNALS) {
            try {
                Signal signal = new Signal(name);
                s.previous.put(signal, Signal.handle(signal, s::handle));
            } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
                // not available here: the JVM's default stays
            }
        }
        return s;
    }

    private void handle(Signal signal) {
        if (!armed.get()) {
            return;
        }
        if (!stopping.compareAndSet(false, true)) {
            Runtime.getRuntime().halt(128 + signal.getNumber());   // a second signal: the user insists
        }
        try {
            cleanStop.run();
        } finally {
            Runtime.getRuntime().exit(128 + signal.getNumber());
        }
    }

    /**
     * Stops handling the signals (the process is ending normally); idempotent. While a stop is in
     * progress it blocks instead, until that stop ends the process, so the normal ending (its own
     * exit code, closing the database) does not race the clean stop.
     */
    @Override
    public void close() {
        while (stopping.get()) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (armed.compareAndSet(true, false)) {
            previous.forEach((signal, handler) -> {
                try {
                    Signal.handle(signal, handler);
                } catch (IllegalArgumentException e) {
                    // leave it
                }
            });
        }
    }
}
