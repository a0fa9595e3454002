package org.leasesync.run;

/**
 * What to do on taking over a key whose last run did not finish (docs/architecture.md, "Vocabulary").
 *
 * @param action the decision
 * @param reason a plain sentence explaining it, shown in history and for {@code ask}
 */
public record RecoveryDecision(Action action, String reason) {

    /** The four decisions. */
    public enum Action {
        /** No usable checkpoint of that run: start again from the beginning (pulls are idempotent). */
        RESTART("restart"),
        /** Continue from the checkpoint: never repeat a confirmed stage or a confirmed push. */
        RESUME("resume"),
        /** The checkpoint says the run's work was done: close it, do not redo it. */
        SKIP("skip"),
        /** State unknown or corrupt: fail closed, needs attention. */
        ASK("ask");

        private final String wireName;

        Action(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    public RecoveryDecision {
        java.util.Objects.requireNonNull(action, "action");
        java.util.Objects.requireNonNull(reason, "reason");
    }
}
