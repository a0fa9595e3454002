package org.leasesync.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;

/** JSON-friendly views of registry rows (plain strings and numbers, ISO-8601 instants). */
final class Views {

    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private Views() {}

    /**
     * A lease row as shown. {@code expiresAt} and {@code renewedAt} are the holder's wall clock;
     * {@code expiresInMillis} is by this machine's clock and null when the two cannot be compared
     * (free key, a holder that may have stopped renewing, or clocks hours apart:
     * {@link LeaseRecord#expiresInBy}).
     */
    record LeaseView(
            String key,
            String owner,
            long epoch,
            String state,
            String expiresAt,
            Long expiresInMillis,
            long heartbeat,
            String renewedAt) {
        static LeaseView of(LeaseRecord r, Instant now) {
            return new LeaseView(
                    r.key().asString(),
                    r.ownerText(),
                    r.epoch(),
                    r.isHeld() ? "held" : "free",
                    r.expiresAt().toString(),
                    r.expiresInBy(now).map(Duration::toMillis).orElse(null),
                    r.heartbeat(),
                    r.renewedAt().toString());
        }
    }

    record StageView(String stage, String at) {}

    /**
     * A run as {@code history} and {@code status} show it. {@code error} is the reason of a run that
     * did not succeed; {@code note} what a succeeded run has to say (e.g. that it downloaded
     * everything again because the server's data went back); null when none. {@code mergedSources}
     * lists every trigger that joined, in arrival order (kept for existing readers);
     * {@code mergedSourceCounts} counts them per source, in first-arrival order.
     */
    record RunView(
            String runId,
            String key,
            long epoch,
            String owner,
            String firstSource,
            List<String> mergedSources,
            java.util.Map<String, Integer> mergedSourceCounts,
            String startedAt,
            String endedAt,
            String stage,
            String status,
            String error,
            String note,
            String recovery,
            List<StageView> stages) {
        static RunView of(RunRecord r) {
            boolean succeeded = r.status().map(s -> s == RunStatus.SUCCEEDED).orElse(false);
            String text = r.error().orElse(null);
            return new RunView(
                    r.runId(),
                    r.key().asString(),
                    r.epoch(),
                    r.owner(),
                    r.firstSource().wireName(),
                    r.mergedSources().stream().map(TaskSource::wireName).toList(),
                    org.leasesync.run.SourceCounts.of(r.mergedSources()).byWireName(),
                    r.startedAt().toString(),
                    r.endedAt().map(Instant::toString).orElse(null),
                    r.stageText(),
                    r.statusText(),
                    succeeded ? null : text,
                    succeeded ? text : null,
                    r.recovery().orElse(null),
                    r.stages().stream()
                            .map(s -> new StageView(s.stage(), s.at().toString()))
                            .toList());
        }
    }

    /**
     * A timer trigger skipped because the key had just synced ({@code history --json}, member
     * {@code skipped}, newest first).
     *
     * @param recentRunId the successful run that made it unnecessary (listed in {@code runs})
     * @param ageMillis how long before the skip that run had ended, on the shared monotonic clock
     * @param at when it was skipped, on the skipping process's wall clock (display only)
     */
    record SkipView(
            String key, String source, String owner, String at, String recentRunId, long ageMillis, String reason) {
        static SkipView of(org.leasesync.sync.TriggerSkip s) {
            return new SkipView(
                    s.key().asString(),
                    s.source().wireName(),
                    s.owner(),
                    s.at().toString(),
                    s.recentRunId(),
                    s.age().toMillis(),
                    s.reason());
        }
    }

    record CheckpointView(
            String key,
            String runId,
            long epoch,
            String stage,
            String pullCursor,
            String pushBatchId,
            String idempotencyKey,
            List<String> pushChangeIds,
            String pushSentAt,
            String updatedAt) {
        static CheckpointView of(Checkpoint c) {
            return new CheckpointView(
                    c.key().asString(),
                    c.runId(),
                    c.epoch(),
                    c.stageText(),
                    c.pullCursor().orElse(null),
                    c.pushBatchId().orElse(null),
                    c.idempotencyKey().orElse(null),
                    c.pushChangeIds(),
                    c.pushSentAt().map(Instant::toString).orElse(null),
                    c.updatedAt().toString());
        }
    }

    /**
     * A key that needs attention, with the evidence (the unconfirmed push from its checkpoint) and the
     * commands that resolve it.
     *
     * @param idempotencyKey the key of the push whose outcome is unknown, or null when none is recorded
     * @param changeIds the change ids in that push (empty when none)
     * @param checkAgain the command that asks the server again (run once the server answers)
     * @param discardUnconfirmed the command that gives up confirming and sends the edits again
     */
    record NeedsAttentionView(
            String key,
            String runId,
            String reason,
            String idempotencyKey,
            List<String> changeIds,
            String checkAgain,
            String discardUnconfirmed) {
        static NeedsAttentionView of(RunRecord run, java.util.Optional<Checkpoint> checkpoint, String dataDirArgument) {
            java.util.Optional<Checkpoint> push = checkpoint.filter(Checkpoint::hasPushInFlight);
            String sync = "leasesync sync --user " + shellQuote(run.key().userId()) + " --scope "
                    + run.key().scope() + dataDirArgument + " --server URL --token TOKEN";
            return new NeedsAttentionView(
                    run.key().asString(),
                    run.runId(),
                    run.error().orElse("the last run ended in an unknown state"),
                    push.flatMap(Checkpoint::idempotencyKey).orElse(null),
                    push.map(Checkpoint::pushChangeIds).orElse(List.of()),
                    sync + " --check-again",
                    sync + " --discard-unconfirmed");
        }
    }

    /** A shell word: as is when safe, else in single quotes. */
    static String shellQuote(String s) {
        return s.matches("[A-Za-z0-9._/=:@%+-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    /** A wall-clock instant in the user's time zone, e.g. {@code 2026-11-30 14:03:07}. */
    static String local(Instant i) {
        return i == null ? "-" : LOCAL.format(i.atZone(ZoneId.systemDefault()));
    }

    /** "in 42s" / "42s ago". */
    static String relative(Instant now, Instant then) {
        long s = Duration.between(now, then).toSeconds();
        return s >= 0 ? "in " + s + "s" : -s + "s ago";
    }

    static String orDash(String s) {
        return s == null || s.isBlank() ? "-" : s;
    }
}
