package org.leasesync.desktop;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.Scope;
import org.leasesync.run.TaskSource;

/**
 * What the window shows over the cards' stored state: a pause in force, the server being
 * unreachable (offline), the changes waiting per scope, the triggers the pause skipped, and the
 * account being signed out (a run of this window found its session refused: every card of the
 * account says so, not only the one whose run found out, since one session serves all of them). A
 * paused or offline card still shows a run in progress, a key that needs attention and a signed-out
 * key as they are.
 *
 * <p>Immutable.
 *
 * @param now when this overlay was made (for "Paused until 15:00" against today's date)
 * @param pause the pause in force, if any
 * @param offlineNextTry when the server cannot be reached: when leasesync tries it next
 * @param pending changes waiting in the outbox, per scope (shown while offline)
 * @param skipped the last trigger the pause skipped, per scope
 * @param accountSignedOut the server refused the account's session (a run of this window ended signed out)
 * @param conflicts conflicts waiting for the user in the outbox, per scope (absent: none)
 */
public record CardOverlay(
        Instant now,
        Optional<Pause> pause,
        Optional<Instant> offlineNextTry,
        Map<Scope, Integer> pending,
        Map<Scope, Skip> skipped,
        boolean accountSignedOut,
        Map<Scope, Integer> conflicts) {

    /**
     * A trigger skipped because sync was paused.
     *
     * @param source the trigger
     * @param at when
     */
    public record Skip(TaskSource source, Instant at) {
        public Skip {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(at, "at");
        }
    }

    /** With the account not signed out. */
    public CardOverlay(
            Instant now,
            Optional<Pause> pause,
            Optional<Instant> offlineNextTry,
            Map<Scope, Integer> pending,
            Map<Scope, Skip> skipped) {
        this(now, pause, offlineNextTry, pending, skipped, false);
    }

    /** With no conflicts known. */
    public CardOverlay(
            Instant now,
            Optional<Pause> pause,
            Optional<Instant> offlineNextTry,
            Map<Scope, Integer> pending,
            Map<Scope, Skip> skipped,
            boolean accountSignedOut) {
        this(now, pause, offlineNextTry, pending, skipped, accountSignedOut, Map.of());
    }

    public CardOverlay {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(pause, "pause");
        Objects.requireNonNull(offlineNextTry, "offlineNextTry");
        pending = Map.copyOf(pending);
        skipped = Map.copyOf(skipped);
        conflicts = Map.copyOf(conflicts);
        conflicts.forEach((scope, n) -> {
            if (n < 0) {
                throw new IllegalArgumentException("conflicts of " + scope + " must be >= 0, got " + n);
            }
        });
    }

    /** Nothing over the stored state. */
    public static CardOverlay none(Instant now) {
        return new CardOverlay(now, Optional.empty(), Optional.empty(), Map.of(), Map.of());
    }

    /** The state a card shows for a key whose stored state is {@code kind}. */
    public KeyStatus.Kind shown(KeyStatus.Kind kind) {
        // signed out: the server answered (it refused the session), and only signing in helps
        if (kind == KeyStatus.Kind.RUNNING
                || kind == KeyStatus.Kind.NEEDS_ATTENTION
                || kind == KeyStatus.Kind.SIGNED_OUT) {
            return kind;
        }
        if (accountSignedOut) {
            return KeyStatus.Kind.SIGNED_OUT;
        }
        if (pause.isPresent()) {
            return KeyStatus.Kind.PAUSED;
        }
        if (offlineNextTry.isPresent()) {
            return KeyStatus.Kind.OFFLINE;
        }
        return kind;
    }

    /**
     * The state the card of {@code s} shows: as {@link #shown(KeyStatus.Kind)}, except that conflicts
     * waiting in the key's outbox turn what would show as up to date (never synced, idle, cancelled),
     * paused or offline into {@link KeyStatus.Kind#CONFLICTS} — worse than up to date (the user has
     * something to do, which needs no server), better than a failure, which stays as it is, as do a
     * run in progress, a key that needs attention and a signed-out account.
     */
    public KeyStatus.Kind shown(KeyStatus s) {
        KeyStatus.Kind k = shown(s.kind());
        boolean calm = k == KeyStatus.Kind.NEVER_SYNCED
                || k == KeyStatus.Kind.IDLE
                || k == KeyStatus.Kind.CANCELLED
                || k == KeyStatus.Kind.PAUSED
                || k == KeyStatus.Kind.OFFLINE;
        return calm && conflicts(s.key().scope()) > 0 ? KeyStatus.Kind.CONFLICTS : k;
    }

    /** Conflicts waiting in {@code scope}'s outbox (0 when none or unknown). */
    public int conflicts(Scope scope) {
        return conflicts.getOrDefault(scope, 0);
    }

    /** The same overlay with these conflict counts per scope. */
    public CardOverlay withConflicts(Map<Scope, Integer> counts) {
        return new CardOverlay(now, pause, offlineNextTry, pending, skipped, accountSignedOut, counts);
    }

    /** Changes waiting in {@code scope}'s outbox (0 when unknown). */
    public int pending(Scope scope) {
        return pending.getOrDefault(scope, 0);
    }

    public CardOverlay withPause(Optional<Pause> p, Instant at) {
        return new CardOverlay(
                at, p, offlineNextTry, pending, p.isPresent() ? skipped : Map.of(), accountSignedOut, conflicts);
    }

    public CardOverlay withOffline(Optional<Instant> nextTry, Map<Scope, Integer> waiting, Instant at) {
        return new CardOverlay(at, pause, nextTry, waiting, skipped, accountSignedOut, conflicts);
    }

    public CardOverlay withSkipped(Map<Scope, Skip> m) {
        return new CardOverlay(now, pause, offlineNextTry, pending, m, accountSignedOut, conflicts);
    }

    /** The same overlay with the account signed out or not. */
    public CardOverlay withAccountSignedOut(boolean signedOut) {
        return new CardOverlay(now, pause, offlineNextTry, pending, skipped, signedOut, conflicts);
    }

    public CardOverlay withSkip(Scope scope, Skip skip) {
        Map<Scope, Skip> m = new EnumMap<>(Scope.class);
        m.putAll(skipped);
        m.put(scope, skip);
        return new CardOverlay(now, pause, offlineNextTry, pending, m, accountSignedOut, conflicts);
    }
}
