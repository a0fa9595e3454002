package org.leasesync.desktop;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunEvent;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back the automatic triggers of an account whose session the server refused: once a run of
 * this window ends signed out, the timer, coming back to the window, saving an edit and the retry after being
 * offline ask nothing for that user until it signs in again here — each would only be refused by the
 * server again. Sync now is the user's own and still runs (and ends signed out at once).
 *
 * <p>Only this window's own runs close the gate, never a signed-out run found in the database: the
 * window read its token when it started (or signed in), and a run that ended signed out before then
 * says nothing about that token; the first automatic sync tells.
 *
 * <p>Thread-safe; never blocks. Fed with the coordinator's run events ({@link #accept}).
 */
public final class SignedOutGate implements TriggerGate, Consumer<RunEvent> {

    private static final Logger log = LoggerFactory.getLogger(SignedOutGate.class);

    private final Set<String> signedOut = ConcurrentHashMap.newKeySet();
    private final java.util.List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Calls {@code listener} (on the thread of the change) whenever a user is signed out or in here. */
    public void addListener(Runnable listener) {
        listeners.add(java.util.Objects.requireNonNull(listener));
    }

    @Override
    public Optional<String> refusal(TaskKey key, TaskSource source) {
        if (source != TaskSource.SCHEDULE
                && source != TaskSource.FOREGROUND
                && source != TaskSource.RETRY
                && source != TaskSource.EDIT) {
            return Optional.empty();
        }
        return signedOut.contains(key.userId())
                ? Optional.of(
                        "signed out: the server no longer accepts the session of " + key.userId() + "; sign in again")
                : Optional.empty();
    }

    /** A run of this window ended: signed out closes the gate for its user. Any thread. */
    @Override
    public void accept(RunEvent e) {
        if (e.kind() == RunEvent.Kind.FINISHED
                && e.result().map(r -> r.status() == RunStatus.SIGNED_OUT).orElse(false)) {
            signedOut(e.key().userId());
        }
    }

    /** {@code user}'s session is over (refused by the server, or signed out here). */
    public void signedOut(String user) {
        if (signedOut.add(user)) {
            log.info("{} is signed out: no timer, window or retry sync until it signs in again", user);
            listeners.forEach(Runnable::run);
        }
    }

    /** {@code user} signed in again: its automatic triggers run again. */
    public void signedIn(String user) {
        if (signedOut.remove(user)) {
            log.info("{} signed in again: automatic syncs resume", user);
            listeners.forEach(Runnable::run);
        }
    }

    /** Whether {@code user}'s automatic triggers are held back. */
    public boolean isSignedOut(String user) {
        return signedOut.contains(user);
    }
}
