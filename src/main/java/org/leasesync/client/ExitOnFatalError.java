package org.leasesync.client;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.leasesync.lease.FatalErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FatalErrorHandler} of the long-running processes (the window, the chaos agent): after
 * an error that may have left the JVM broken ({@link FatalErrorHandler#isFatal}: out of memory, an
 * internal JVM error) the process does not limp on. The run that met the error has already been
 * ended as failed and its lease released by the coordinator; this handler then
 * <ol>
 *   <li>logs one line (ERROR) and prints one to standard error:
 *       {@code leasesync: stopping: out of memory (OutOfMemoryError: Java heap space) — the run was
 *       ended and its lease released; start leasesync again};</li>
 *   <li>closes what it was given ({@link #closing}): the other runs are cancelled, record
 *       "cancelled" and release their leases, and the database is closed;</li>
 *   <li>exits with status {@value #EXIT_STATUS}.</li>
 * </ol>
 * Steps 2 and 3 run on a thread of their own ({@code fatal-exit}); if closing takes longer than
 * {@link #CLOSE_LIMIT} plus a margin, or that thread cannot be started (no memory for a thread), the
 * process halts at once — any lease it still holds then expires after one TTL, as after a crash.
 *
 * <p>Thread-safe. Acts on the first fatal error only; never blocks the caller.
 */
public final class ExitOnFatalError implements FatalErrorHandler {

    /** The exit status after a fatal error. */
    public static final int EXIT_STATUS = 1;
    /** How long the runtime gets to cancel its other runs and close. */
    public static final Duration CLOSE_LIMIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(ExitOnFatalError.class);

    private final PrintStream err;
    private final IntConsumer exit;
    private final IntConsumer halt;
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile AutoCloseable toClose;

    /**
     * @param err where the one line for the user goes
     * @param exit ends the process normally (shutdown hooks run): {@code System::exit}
     * @param halt ends it at once: {@code Runtime.getRuntime()::halt}
     */
    public ExitOnFatalError(PrintStream err, IntConsumer exit, IntConsumer halt) {
        this.err = Objects.requireNonNull(err, "err");
        this.exit = Objects.requireNonNull(exit, "exit");
        this.halt = Objects.requireNonNull(halt, "halt");
    }

    /** For a real process: standard error, {@code System.exit} and {@code Runtime.halt}. */
    public static ExitOnFatalError forThisProcess() {
        return new ExitOnFatalError(
                System.err, System::exit, code -> Runtime.getRuntime().halt(code));
    }

    /** What to close before exiting (the runtime, or the window's backend). Set once it exists. */
    public ExitOnFatalError closing(AutoCloseable resource) {
        this.toClose = resource;
        return this;
    }

    @Override
    public void onFatalError(Throwable error) {
        if (!fired.compareAndSet(false, true)) {
            return;
        }
        String what = FatalErrorHandler.describe(error);
        try {
            log.error(
                    "leasesync stops after a fatal error: {}; the run that met it was ended and its lease "
                            + "released; closing and exiting with status {}",
                    what,
                    EXIT_STATUS,
                    error);
            err.println("leasesync: stopping: " + what + " — the run was ended and its lease released; "
                    + "start leasesync again");
            err.flush();
        } catch (Throwable ignored) {
            // out of memory while reporting: still stop
        }
        try {
            Thread t = new Thread(this::closeAndExit, "fatal-exit");
            t.setDaemon(false);
            t.start();
        } catch (Throwable e) {
            halt.accept(EXIT_STATUS);
        }
    }

    private void closeAndExit() {
        Thread watchdog = new Thread(
                () -> {
                    try {
                        Thread.sleep(CLOSE_LIMIT.multipliedBy(3).toMillis());
                        halt.accept(EXIT_STATUS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "fatal-exit-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        AutoCloseable c = toClose;
        try {
            if (c != null) {
                c.close();
            }
        } catch (Throwable e) {
            try {
                log.warn("closing after a fatal error failed: {}", e.toString());
            } catch (Throwable ignored) {
                // nothing more to do
            }
        }
        exit.accept(EXIT_STATUS);
    }
}
