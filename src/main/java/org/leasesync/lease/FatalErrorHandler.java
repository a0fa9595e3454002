package org.leasesync.lease;

import org.jspecify.annotations.Nullable;

/**
 * What the process does after a fatal error ({@link #isFatal}) in one of the registry's threads —
 * after the registry has already ended what it could: the run that hit it is recorded as failed
 * and its lease released, so other processes can take the key at once.
 *
 * <p>The composition root decides: the window and the chaos agent close their runtime and exit (a
 * desktop app that runs all day must not limp on after an {@link OutOfMemoryError}); a one-shot
 * {@code leasesync sync} only reports the failed run, since it exits anyway. Implementations are
 * called on the thread that saw the error, must be thread-safe and must not block.
 */
@FunctionalInterface
public interface FatalErrorHandler {

    /** Does nothing more (the registry has already logged the error); the process goes on. */
    FatalErrorHandler LOG_ONLY = error -> {};

    /** Called once per fatal error seen; never with a non-fatal one. */
    void onFatalError(Throwable error);

    /**
     * Whether {@code error} may have left the JVM in a broken state, so that the process should not
     * go on: {@link OutOfMemoryError}, {@link InternalError} and {@link UnknownError} — every
     * {@link VirtualMachineError} but {@link StackOverflowError}, whose stack has unwound by the
     * time it is caught. Anything else (a {@code StackOverflowError}, an {@code AssertionError}, a
     * {@code LinkageError}, any exception) ends only the run that threw it.
     */
    static boolean isFatal(@Nullable Throwable error) {
        return error instanceof VirtualMachineError && !(error instanceof StackOverflowError);
    }

    /**
     * Calls the handler if {@code error} is fatal; a handler that throws is ignored (the error is
     * already logged).
     */
    static void report(@Nullable FatalErrorHandler handler, @Nullable Throwable error) {
        if (handler == null || error == null || !isFatal(error)) {
            return;
        }
        try {
            handler.onFatalError(error);
        } catch (Throwable ignored) {
            // the handler itself failed (e.g. out of memory again); nothing more can be done here
        }
    }

    /**
     * A plain, user-facing description of an error that ended a run: an exception's message; for an
     * {@link Error} what kind of error it was, e.g. {@code out of memory (OutOfMemoryError: Java
     * heap space)} or {@code internal error (StackOverflowError)}.
     */
    static String describe(Throwable error) {
        String m = error.getMessage();
        String name = error.getClass().getSimpleName();
        if (!(error instanceof Error)) {
            return m == null || m.isBlank() ? name : m;
        }
        String detail = name + (m == null || m.isBlank() ? "" : ": " + m);
        return (error instanceof OutOfMemoryError ? "out of memory (" : "internal error (") + detail + ")";
    }
}
