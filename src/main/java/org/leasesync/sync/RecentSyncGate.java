package org.leasesync.sync;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RunStatus;
import org.leasesync.run.StartCheck;
import org.leasesync.run.TaskSource;

/**
 * Whether a background trigger should ask for a run of a key, or is unnecessary because the key
 * synced successfully a moment ago — in this process or in any other one on the same local
 * database (several windows on one data directory each run a timer; without this they would sync
 * every key once per window and interval, 1–3 s apart, by different owners).
 *
 * <p>The rule:
 * <ol>
 *   <li>Read the key's newest run (highest epoch) from the shared database — never this process's
 *       memory, which knows nothing of the other windows' runs.</li>
 *   <li>It must have <b>succeeded</b>. A failed, cancelled or still running run, one that needs
 *       attention, or none at all: the trigger is due (the coordinator then starts, joins or reports).</li>
 *   <li>How long ago it ended is measured on one <b>monotonic clock</b>: the run's end was stamped
 *       with its process's {@link TimeSource#monotonicNanos()} and that clock's id
 *       ({@link TimeSource#monotonicClockId()}; on Linux the boot's {@code CLOCK_MONOTONIC}, which
 *       every process of the machine shares and no wall-clock step moves). The age is this process's
 *       monotonic now minus that stamp, and only when the ids are equal. A stored wall-clock instant
 *       is never compared with the local one, so processes whose wall clocks disagree by hours, or a
 *       clock stepped in between, change nothing. Different or unknown clocks (another machine on a
 *       shared PostgreSQL store, {@code faketime}), a missing stamp or a negative age: due.</li>
 *   <li>Recent means {@code age < within}: {@link #SCHEDULE_SHARE} of the interval for the timer
 *       (so N windows cost about one scheduled sync per interval: the first tick of any window after
 *       80% of the interval syncs; at worst, a tick just before that mark skipped and the window's
 *       next one, ±10% jitter, comes about 1.9 intervals after the last success), the minimum
 *       interval for the foreground trigger.</li>
 * </ol>
 * Every rule errs towards syncing: when in doubt, the trigger is due. A timer or foreground trigger
 * found unnecessary is recorded in the key's history ({@link TriggerSkip}), so "why did it not sync
 * when I came back to the window?" has an answer (focus gains are debounced by the window first). The coordinator applies the rule with the key's lease granted
 * ({@link #backgroundTriggers}), so two windows whose timers fire together cannot both sync: the
 * second one finds the first one's success.
 *
 * <p>Thread-safe. {@link #check} and the {@link StartCheck} of {@link #backgroundTriggers} block on
 * the database; a database failure in the latter makes the trigger due (the run then reports it).
 */
public final class RecentSyncGate {

    /** The share of the timer interval within which a successful sync makes a timer tick unnecessary. */
    public static final double SCHEDULE_SHARE = 0.8;

    private static final System.Logger log = System.getLogger(RecentSyncGate.class.getName());

    private final RecentSyncs store;
    private final TimeSource time;
    private final OwnerId self;

    /**
     * @param store the shared local database
     * @param time this process's time source (its monotonic clock measures the age)
     * @param self this process's owner id: a run of its own is "synced by this process"
     */
    public RecentSyncGate(RecentSyncs store, TimeSource time, OwnerId self) {
        this.store = Objects.requireNonNull(store, "store");
        this.time = Objects.requireNonNull(time, "time");
        this.self = Objects.requireNonNull(self, "self");
    }

    /** What the check found. */
    public sealed interface Verdict {

        /** The trigger should ask for a run; {@code why} says why it is not recent, for logs and tests. */
        record Due(String why) implements Verdict {}

        /** The key's newest run succeeded {@code age} ago (&ge; 0, on the shared monotonic clock). */
        record Recent(NewestRun run, Duration age) implements Verdict {}
    }

    /**
     * Checks the key without writing anything.
     *
     * @param within how recent a success must be to make a trigger unnecessary; positive
     * @throws StoreException if the database fails
     * @throws IllegalArgumentException if {@code within} is not positive
     */
    public Verdict check(TaskKey key, Duration within) {
        if (within == null || within.isNegative() || within.isZero()) {
            throw new IllegalArgumentException("recent-sync window must be positive, got " + within);
        }
        Optional<NewestRun> newest = store.newestRun(key);
        if (newest.isEmpty()) {
            return new Verdict.Due("never synced");
        }
        NewestRun run = newest.get();
        if (run.status().orElse(null) != RunStatus.SUCCEEDED) {
            return new Verdict.Due(
                    "the last run is " + run.status().map(RunStatus::wireName).orElse("unreadable"));
        }
        Optional<String> clock = time.monotonicClockId();
        if (clock.isEmpty()
                || run.monoClock().isEmpty()
                || !clock.equals(run.monoClock())
                || run.endedMonoNanos().isEmpty()) {
            return new Verdict.Due("the last success was not timed on this process's monotonic clock");
        }
        long ageNanos = time.monotonicNanos() - run.endedMonoNanos().getAsLong();
        if (ageNanos < 0) {
            return new Verdict.Due("the last success is stamped after now on the monotonic clock");
        }
        Duration age = Duration.ofNanos(ageNanos);
        return age.compareTo(within) < 0
                ? new Verdict.Recent(run, age)
                : new Verdict.Due("synced " + describe(age) + " ago");
    }

    /**
     * The rule for the window's background triggers, as the coordinator asks it with the key's lease
     * granted ({@link org.leasesync.run.Coordinator#setStartCheck}; then it cannot race another
     * window's run) and as the triggers ask it beforehand (no lease taken when clearly unnecessary):
     * a {@code schedule} trigger is unnecessary when the key synced successfully less than
     * {@link #SCHEDULE_SHARE} of {@code scheduleInterval} ago, and the skip is recorded in the key's
     * history; a {@code foreground} trigger when it synced less than {@code foregroundMinInterval}
     * ago (recorded likewise); a {@code retry} when the key's newest run has succeeded since the failure
     * that scheduled it, in any window (not recorded); {@code manual} and {@code recovery} triggers
     * always run. A failure to check or to record lets the trigger run (logged).
     *
     * @throws IllegalArgumentException if the schedule interval is not positive or the foreground minimum
     *     interval is negative (zero: a foreground trigger is never unnecessary)
     */
    public StartCheck backgroundTriggers(Duration scheduleInterval, Duration foregroundMinInterval) {
        Duration timerWithin = Duration.ofNanos(
                (long) (positive(scheduleInterval, "schedule interval").toNanos() * SCHEDULE_SHARE));
        if (foregroundMinInterval == null || foregroundMinInterval.isNegative()) {
            throw new IllegalArgumentException(
                    "foreground minimum interval must not be negative, got " + foregroundMinInterval);
        }
        Duration focusWithin = foregroundMinInterval; // zero (allowed by --foreground-min-interval): never recent
        return new StartCheck() {
            @Override
            public Optional<String> skipReason(org.leasesync.run.TriggerRequest request) {
                return switch (request.source()) {
                    case SCHEDULE -> unnecessary(request.key(), TaskSource.SCHEDULE, timerWithin);
                    case FOREGROUND ->
                        focusWithin.isZero()
                                ? Optional.empty()
                                : unnecessary(request.key(), TaskSource.FOREGROUND, focusWithin);
                    case RETRY -> supersededRetry(request.key());
                    default -> Optional.empty();
                };
            }

            /** {@code manual} and {@code recovery} triggers (and foreground ones with a zero interval) are never asked. */
            @Override
            public boolean asks(org.leasesync.run.TriggerRequest request) {
                return switch (request.source()) {
                    case SCHEDULE, RETRY -> true;
                    case FOREGROUND -> !focusWithin.isZero();
                    default -> false;
                };
            }
        };
    }

    /**
     * A retry is scheduled in the process whose run failed; when the key's newest run has succeeded
     * since (in any window), the failure it was to repair is gone. No clock is read: a newer run has
     * a higher epoch than the failed one.
     */
    private Optional<String> supersededRetry(TaskKey key) {
        try {
            return store.newestRun(key)
                    .filter(r -> r.status().orElse(null) == RunStatus.SUCCEEDED)
                    .map(r -> "the key synced since the failure " + by(r));
        } catch (StoreException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    "{0}: cannot read the newest run ({1}); the retry runs",
                    key,
                    e.getMessage());
            return Optional.empty();
        }
    }

    private Optional<String> unnecessary(TaskKey key, TaskSource source, Duration within) {
        Optional<Verdict.Recent> recent = recent(key, within);
        if (recent.isEmpty()) {
            return Optional.empty();
        }
        TriggerSkip skip = new TriggerSkip(
                key,
                source,
                self.asString(),
                time.now(),
                recent.get().run().runId(),
                recent.get().age(),
                reason(recent.get()));
        try {
            store.recordSkip(skip);
        } catch (StoreException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    "{0}: could not record the skipped {1} trigger ({2}); it runs",
                    key,
                    source.wireName(),
                    e.getMessage());
            return Optional.empty();
        }
        log.log(System.Logger.Level.INFO, "{0}: {1} trigger {2}", key, source.wireName(), skip.reason());
        return Optional.of(skip.reason());
    }

    private Optional<Verdict.Recent> recent(TaskKey key, Duration within) {
        try {
            return check(key, within) instanceof Verdict.Recent r ? Optional.of(r) : Optional.empty();
        } catch (StoreException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    "{0}: cannot tell whether it synced recently ({1}); the trigger runs",
                    key,
                    e.getMessage());
            return Optional.empty();
        }
    }

    private static Duration positive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + d);
        }
        return d;
    }

    private String reason(Verdict.Recent recent) {
        return "skipped: synced " + describe(recent.age()) + " ago " + by(recent.run());
    }

    private String by(NewestRun run) {
        if (run.owner().equals(self.asString())) {
            return "by this process";
        }
        return pid(run.owner()).map(p -> "by another process (pid " + p + ")").orElse("by another process");
    }

    private static Optional<Long> pid(String owner) {
        try {
            return Optional.of(OwnerId.parse(owner).pid());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** "0 s", "12 s", "4 min 5 s", "2 h 3 min". */
    static String describe(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
    }
}
