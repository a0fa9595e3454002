package org.leasesync.run;

import java.util.Optional;

/**
 * Decides how to recover a key whose last run is still marked running although its owner lost the
 * lease (crashed, paused past its TTL). Pure function; thread-safe.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li>The run's stage or status text is unrecognised → {@code ask}.</li>
 *   <li>No checkpoint, or the checkpoint belongs to an earlier run → {@code restart}.</li>
 *   <li>Checkpoint stage text unrecognised → {@code ask}.</li>
 *   <li>Checkpoint epoch differs from the run's epoch → {@code ask} (inconsistent).</li>
 *   <li>{@code done} → {@code skip}.</li>
 *   <li>{@code pulling} with a batch but no idempotency key (or the reverse) → {@code ask}.</li>
 *   <li>{@code pulling} → {@code resume} from the pull cursor (a push an earlier run left in flight is
 *       kept and settled, by querying its key, at the push stage).</li>
 *   <li>{@code pushing} with a batch but no idempotency key (or a key but no batch) → {@code ask}.</li>
 *   <li>{@code pushing} → {@code resume}: query the in-flight key before sending anything.</li>
 * </ol>
 * Anything unrecognised or inconsistent fails closed (invariant 6, fail closed: docs/architecture.md).
 */
public final class RecoveryPolicy {

    private RecoveryPolicy() {}

    /**
     * The recovery decision for a key whose last run is still marked running.
     *
     * @param unfinished the last run of the key, still marked running
     * @param checkpoint the key's checkpoint, if any
     */
    public static RecoveryDecision decide(RunRecord unfinished, Optional<Checkpoint> checkpoint) {
        if (unfinished.status().isEmpty() || unfinished.stage().isEmpty()) {
            return ask("the interrupted run " + unfinished.runId() + " has an unreadable record (status '"
                    + unfinished.statusText() + "', stage '" + unfinished.stageText() + "')");
        }
        if (checkpoint.isEmpty() || !checkpoint.get().runId().equals(unfinished.runId())) {
            return new RecoveryDecision(
                    RecoveryDecision.Action.RESTART,
                    "the interrupted run " + unfinished.runId() + " wrote no checkpoint; starting it again");
        }
        Checkpoint cp = checkpoint.get();
        if (cp.stage().isEmpty()) {
            return ask("the checkpoint of run " + cp.runId() + " has an unknown stage '" + cp.stageText() + "'");
        }
        if (cp.epoch() != unfinished.epoch()) {
            return ask("the checkpoint of run " + cp.runId() + " has epoch " + cp.epoch() + " but the run held epoch "
                    + unfinished.epoch());
        }
        boolean hasBatch = cp.pushBatchId().isPresent() || !cp.pushChangeIds().isEmpty();
        boolean hasKey = cp.idempotencyKey().isPresent();
        switch (cp.stage().get()) {
            case DONE -> {
                return new RecoveryDecision(
                        RecoveryDecision.Action.SKIP, "the interrupted run " + cp.runId() + " had finished its work");
            }
            case PULLING -> {
                if (hasBatch != hasKey) {
                    return ask("the checkpoint of run " + cp.runId()
                            + " records a push batch without its idempotency key (or the reverse)");
                }
                return new RecoveryDecision(
                        RecoveryDecision.Action.RESUME,
                        "resuming the interrupted pull from cursor "
                                + cp.pullCursor().orElse("(start)"));
            }
            case PUSHING -> {
                if (hasBatch != hasKey) {
                    return ask("the checkpoint of run " + cp.runId()
                            + " records a push batch without its idempotency key (or the reverse)");
                }
                return new RecoveryDecision(
                        RecoveryDecision.Action.RESUME,
                        hasKey
                                ? "resuming the interrupted push; asking the server about idempotency key "
                                        + cp.idempotencyKey().get() + " before sending anything"
                                : "resuming at the push stage; no batch was in flight");
            }
            default -> {
                return ask("unexpected checkpoint stage " + cp.stageText());
            }
        }
    }

    private static RecoveryDecision ask(String reason) {
        return new RecoveryDecision(RecoveryDecision.Action.ASK, reason);
    }
}
