package org.leasesync.run;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.leasesync.lease.FatalErrorHandler;

/**
 * The coordinator's listeners. Events are delivered on the thread that caused them; a listener that
 * throws — an exception or an {@link Error} — is logged and the others still get the event, so a
 * listener can never keep a run from ending or its key from being freed. A fatal error
 * ({@link FatalErrorHandler#isFatal}) is also handed to the process's handler.
 *
 * <p>Thread-safe.
 */
final class RunEvents {

    private static final System.Logger log = System.getLogger(RunEvents.class.getName());

    private final List<Consumer<RunEvent>> listeners = new CopyOnWriteArrayList<>();
    private final FatalErrorHandler fatal;

    RunEvents(FatalErrorHandler fatal) {
        this.fatal = Objects.requireNonNull(fatal, "fatal");
    }

    void add(Consumer<RunEvent> listener) {
        listeners.add(Objects.requireNonNull(listener));
    }

    void remove(Consumer<RunEvent> listener) {
        listeners.remove(listener);
    }

    /** Publishes the event a submit result announces (if any) and returns the result. */
    SubmitResult publish(SubmitResult r) {
        RunEvent.from(r).ifPresent(this::publish);
        return r;
    }

    void publish(RunEvent e) {
        for (Consumer<RunEvent> l : listeners) {
            try {
                l.accept(e);
            } catch (Throwable t) {
                log.log(System.Logger.Level.WARNING, "run listener failed on " + e.kind() + " of " + e.key(), t);
                FatalErrorHandler.report(fatal, t);
            }
        }
    }
}
