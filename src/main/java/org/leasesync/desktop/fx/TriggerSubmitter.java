package org.leasesync.desktop.fx;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.desktop.TriggerGate;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.Coordinator;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the main window's triggers and cancels to the {@link Coordinator} and shows on the cards
 * what came of them: a user's trigger that joined a run (the tracker follows it), was skipped, waits
 * for the server or could not start. Timer, window and edit triggers pass the {@link TriggerGate}
 * first; a refused one is logged and handed to the skip display.
 *
 * <p>Every method returns at once: the work runs on the background executor (a submission blocks on
 * the database), and what the cards show comes back through the UI executor. A failed submission
 * is logged and noted on its card, never thrown. Called on the UI thread; the card lookup, the
 * current-user supplier and the skip display are called on the UI thread only.
 */
final class TriggerSubmitter {

    // The window's trigger log lines keep the view model's logger name.
    private static final Logger log = LoggerFactory.getLogger(MainViewModel.class);

    private final Coordinator coordinator;
    private final StatusTracker tracker;
    private final TriggerGate gate;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final Function<Scope, ScopeCardModel> cards;
    private final Supplier<String> currentUser;
    private final BiConsumer<TaskKey, TaskSource> showSkip;

    /**
     * @param background runs coordinator calls (blocking on the database) off the FX thread
     * @param ui delivers what the cards show to the FX thread
     * @param cards the card of a scope of the signed-in user
     * @param currentUser the signed-in user, whose cards are shown
     * @param showSkip shows a trigger the gate refused (if the cards show skips at all)
     */
    TriggerSubmitter(
            Coordinator coordinator,
            StatusTracker tracker,
            TriggerGate gate,
            Executor background,
            Executor ui,
            StatusTexts texts,
            Function<Scope, ScopeCardModel> cards,
            Supplier<String> currentUser,
            BiConsumer<TaskKey, TaskSource> showSkip) {
        this.coordinator = Objects.requireNonNull(coordinator);
        this.tracker = Objects.requireNonNull(tracker);
        this.gate = Objects.requireNonNull(gate);
        this.background = Objects.requireNonNull(background);
        this.ui = Objects.requireNonNull(ui);
        this.texts = Objects.requireNonNull(texts);
        this.cards = Objects.requireNonNull(cards);
        this.currentUser = Objects.requireNonNull(currentUser);
        this.showSkip = Objects.requireNonNull(showSkip);
    }

    /**
     * A trigger the user asked for on a card: not gated; the tracker follows a run it joined, and the
     * card notes why it was skipped or waits.
     */
    void fromCard(TaskKey key, TaskSource source, boolean followUp, boolean checkAgain) {
        Scope scope = key.scope();
        background.execute(() -> {
            SubmitResult r = submitQuietly(new TriggerRequest(key, source, followUp, checkAgain));
            if (r instanceof SubmitResult.Joined j) {
                tracker.userJoined(key, j.running());
            } else if (r instanceof SubmitResult.FollowUpQueued f) {
                tracker.userJoined(key, f.running());
            } else if (r instanceof SubmitResult.Skipped sk) {
                ui.execute(() -> cards.apply(scope).note(sk.reason()));
            } else if (r instanceof SubmitResult.Waiting w) {
                ui.execute(() ->
                        cards.apply(scope).note(texts.messages().get("card.serverWait", texts.time(w.until()))));
            }
        });
    }

    /**
     * "Discard and resend" of {@code key}'s unconfirmed push, asked for on its card: not gated, and
     * only a failure to submit is noted.
     */
    void discardUnconfirmed(TaskKey key) {
        background.execute(() -> submitQuietly(new TriggerRequest(key, TaskSource.MANUAL, false, false, true)));
    }

    /**
     * A trigger the {@link TriggerGate} may refuse (asked first: a pause is the user's own reason,
     * and the card says it); if let through, it is sent only if {@code key} is {@code due}, as a
     * follow-up of a running run if {@code followUp}. Only a failure to submit is noted.
     */
    void gated(TaskKey key, TaskSource source, boolean followUp, Predicate<TaskKey> due) {
        background.execute(() -> {
            Optional<String> refused = gate.refusal(key, source);
            if (refused.isPresent()) {
                log.info("{} trigger for {} skipped: {}", source.wireName(), key, refused.get());
                ui.execute(() -> showSkip.accept(key, source));
            } else if (due.test(key)) {
                submitQuietly(new TriggerRequest(key, source, followUp, false));
            }
        });
    }

    /** Cancels a running run of {@code key} in this process; the card notes when there was none. */
    void cancel(TaskKey key) {
        background.execute(() -> {
            if (!coordinator.cancel(key, "cancelled by the user")) {
                ui.execute(() -> cards.apply(key.scope()).note(texts.messages().get("card.nothingToCancel")));
            }
        });
    }

    private SubmitResult submitQuietly(TriggerRequest request) {
        try {
            return coordinator.submit(request);
        } catch (RuntimeException e) {
            log.warn("could not submit {} trigger for {}: {}", request.source(), request.key(), e.toString());
            ui.execute(() -> {
                if (request.key().userId().equals(currentUser.get())) {
                    cards.apply(request.key().scope()).note(texts.messages().get("card.couldNotStart", e.getMessage()));
                }
            });
            return null;
        }
    }
}
