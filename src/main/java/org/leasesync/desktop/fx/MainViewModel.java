package org.leasesync.desktop.fx;

import java.time.ZoneId;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.leasesync.desktop.CardOverlay;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.desktop.TriggerGate;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunView;
import org.leasesync.run.TaskSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main window's view model: the signed-in account, one {@link ScopeCardModel} per scope, and
 * the user's actions. Every action only asks the {@link Coordinator} (on the injected background
 * executor, never the FX thread); results come back as {@link KeyStatus} snapshots through the
 * injected UI executor. State is touched only on the UI executor's thread.
 */
public final class MainViewModel {

    private static final Logger log = LoggerFactory.getLogger(MainViewModel.class);

    private final Coordinator coordinator;
    private final StatusTracker tracker;
    private final TriggerSubmitter triggers;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final ObservableList<String> accountList;
    private final ObservableList<String> accounts;
    private final ReadOnlyStringWrapper currentUser = new ReadOnlyStringWrapper();
    private final ReadOnlyStringWrapper banner = new ReadOnlyStringWrapper("");
    private final Map<Scope, ScopeCardModel> cards = new EnumMap<>(Scope.class);
    private final TimeSource time;
    private final List<java.util.function.Consumer<KeyStatus>> statusListeners = new java.util.ArrayList<>();
    private final ReadOnlyObjectWrapper<Scope> highlighted = new ReadOnlyObjectWrapper<>();
    private java.util.function.Consumer<Scope> resolver = scope -> {};
    private CardOverlay overlay;
    private java.util.function.Function<String, java.util.Optional<String>> prepare =
            user -> java.util.Optional.empty();

    /**
     * Without a pause gate, with the system's locale and time.
     *
     * @param background runs coordinator calls (blocking on the database) off the FX thread
     * @param ui delivers results to the FX thread ({@code Platform::runLater}); direct in tests
     */
    public MainViewModel(
            Coordinator coordinator,
            Executor background,
            Executor ui,
            ZoneId zone,
            List<String> accounts,
            java.util.function.Function<java.util.function.Consumer<KeyStatus>, StatusTracker> trackerFactory) {
        this(
                coordinator,
                background,
                ui,
                new StatusTexts(zone),
                accounts,
                trackerFactory,
                TriggerGate.OPEN,
                TimeSource.system());
    }

    /**
     * @param background runs coordinator calls (blocking on the database) off the FX thread
     * @param ui delivers results to the FX thread ({@code Platform::runLater}); direct in tests
     * @param texts the words and time formats of the cards
     * @param gate may refuse timer and foreground triggers (the pause); they are then recorded as skipped
     * @param time stamps skipped triggers
     */
    public MainViewModel(
            Coordinator coordinator,
            Executor background,
            Executor ui,
            StatusTexts texts,
            List<String> accounts,
            java.util.function.Function<java.util.function.Consumer<KeyStatus>, StatusTracker> trackerFactory,
            TriggerGate gate,
            TimeSource time) {
        this.coordinator = Objects.requireNonNull(coordinator);
        this.background = Objects.requireNonNull(background);
        this.ui = Objects.requireNonNull(ui);
        this.texts = Objects.requireNonNull(texts);
        this.time = Objects.requireNonNull(time);
        this.overlay = CardOverlay.none(time.now());
        this.accountList = FXCollections.observableArrayList(accounts);
        this.accounts = FXCollections.unmodifiableObservableList(accountList);
        for (Scope s : Scope.values()) {
            cards.put(s, new ScopeCardModel(s, texts.messages()));
        }
        this.tracker = trackerFactory.apply(this::apply);
        this.triggers = new TriggerSubmitter(
                coordinator, tracker, gate, background, ui, texts, cards::get, currentUser::get, this::showSkip);
        coordinator.addListener(tracker);
    }

    /** Signs in as the first account and loads its state. */
    public void start() {
        switchAccount(accounts.get(0));
    }

    /** The user ids of the accounts to switch between (read-only; {@link #setAccounts} changes it). */
    public ObservableList<String> accounts() {
        return accounts;
    }

    /**
     * The accounts to switch between changed (an account signed in or out). Does not switch: the
     * caller switches when the current one is gone. UI thread.
     */
    public void setAccounts(List<String> users) {
        if (!accountList.equals(users)) {
            accountList.setAll(users);
        }
    }

    /**
     * What makes the runtime ready for an account before its cards are shown (a signed-in account's
     * token is read from where it is kept); it answers why the account cannot sync, if so. Runs on the
     * background executor and may block there. Set once, before {@link #start()}.
     */
    public void setAccountPreparer(java.util.function.Function<String, java.util.Optional<String>> prepare) {
        this.prepare = Objects.requireNonNull(prepare);
    }

    /** A line for the whole window, e.g. what a sign-in or sign-out did. UI thread. */
    void showBanner(String text) {
        banner.set(Objects.requireNonNull(text));
    }

    public ReadOnlyStringProperty currentUserProperty() {
        return currentUser.getReadOnlyProperty();
    }

    public String currentUser() {
        return currentUser.get();
    }

    /** A line for the whole window (account switches, errors that belong to no card). */
    public ReadOnlyStringProperty bannerProperty() {
        return banner.getReadOnlyProperty();
    }

    public ScopeCardModel card(Scope scope) {
        return cards.get(scope);
    }

    public StatusTracker tracker() {
        return tracker;
    }

    public StatusTexts texts() {
        return texts;
    }

    /** Applies a snapshot if it belongs to the signed-in user (invariant 8, accounts are isolated:
     * docs/architecture.md). UI thread. */
    void apply(KeyStatus s) {
        if (!s.key().userId().equals(currentUser.get())) {
            return;
        }
        cards.get(s.key().scope()).apply(s, overlay, texts, time.now());
        for (var l : statusListeners) {
            l.accept(s);
        }
    }

    /**
     * Calls {@code listener} with every snapshot shown for the signed-in user, after its card shows it.
     * UI thread.
     */
    public void addStatusListener(java.util.function.Consumer<KeyStatus> listener) {
        statusListeners.add(Objects.requireNonNull(listener));
    }

    /**
     * Shows the cards under {@code o} (pause, offline, changes waiting); the skipped triggers are kept
     * here while the pause lasts. UI thread.
     */
    public void setOverlay(CardOverlay o) {
        overlay = (o.pause().isPresent() ? o.withSkipped(overlay.skipped()) : o.withSkipped(Map.of()))
                .withAccountSignedOut(overlay.accountSignedOut())
                .withConflicts(overlay.conflicts());
        reapply();
    }

    /**
     * The conflicts waiting in the signed-in user's outbox, per scope ({@code user}: whose they are; a
     * count of another user is dropped). A card with conflicts offers Resolve, and shows "1 conflict to
     * resolve" where it would show up to date, paused or offline ({@link CardOverlay#shown(KeyStatus)}).
     * UI thread.
     */
    public void setConflicts(String user, Map<Scope, Integer> counts) {
        if (user.equals(currentUser.get()) && !overlay.conflicts().equals(counts)) {
            overlay = overlay.withConflicts(counts);
            reapply();
        }
    }

    /** What the cards' Resolve opens (the conflict view of a scope). Set once, before the cards show. */
    public void setResolver(java.util.function.Consumer<Scope> resolver) {
        this.resolver = Objects.requireNonNull(resolver);
    }

    /** "Resolve" on a card: opens the conflicts of its key. UI thread. */
    public void resolve(Scope scope) {
        resolver.accept(scope);
    }

    /**
     * A sync of {@code key} asked for by saved local edits (debounced by the caller): the normal
     * trigger path — the pause and signed-out gates, then the coordinator. A run already going on may
     * have pushed before the edit was saved, so it gets one follow-up run (later triggers merge into
     * it). Does nothing for a user no longer shown. UI thread.
     */
    public void editTrigger(TaskKey key) {
        if (key.userId().equals(currentUser.get())) {
            triggers.gated(key, TaskSource.EDIT, true, k -> true);
        }
    }

    /**
     * Whether the account shown is signed out (a run of this window found its session refused): every
     * card of it then says so and offers Sign in. UI thread.
     */
    public void setAccountSignedOut(boolean signedOut) {
        if (overlay.accountSignedOut() != signedOut) {
            if (signedOut) {
                banner.set(""); // "Signed in as …, syncing now" is not true any more; the cards say what to do
            }
            overlay = overlay.withAccountSignedOut(signedOut);
            reapply();
        }
    }

    /** The overlay the cards are shown under. UI thread. */
    public CardOverlay overlay() {
        return overlay;
    }

    private void reapply() {
        for (ScopeCardModel c : cards.values()) {
            if (c.status() != null) {
                c.apply(c.status(), overlay, texts, time.now());
            }
        }
    }

    /** The card that was asked for last ({@link #highlight}), for the view to bring into sight; null at first. */
    public ReadOnlyObjectProperty<Scope> highlightedProperty() {
        return highlighted.getReadOnlyProperty();
    }

    /** Brings {@code scope}'s card into sight (a notification about it was clicked). UI thread. */
    public void highlight(Scope scope) {
        highlighted.set(null);
        highlighted.set(Objects.requireNonNull(scope));
    }

    /** A trigger the gate refused (it is logged already). UI thread. */
    private void showSkip(TaskKey key, TaskSource source) {
        // only the pause's skips are shown (on its cards); a signed-out card says what to do itself
        if (key.userId().equals(currentUser.get()) && overlay.pause().isPresent()) {
            overlay = overlay.withSkip(key.scope(), new CardOverlay.Skip(source, time.now()));
            reapply();
        }
    }

    /**
     * Switches account: the old account's local runs are cancelled and fenced (they can write nothing
     * more, locally or on the server), the new one is made ready ({@link #setAccountPreparer}), and the
     * cards show the new account's state only.
     */
    public void switchAccount(String user) {
        if (user == null || user.equals(currentUser.get()) || !accounts.contains(user)) {
            return;
        }
        String old = currentUser.get();
        currentUser.set(user);
        cards.values().forEach(ScopeCardModel::reset);
        overlay = overlay.withSkipped(Map.of()).withConflicts(Map.of());
        banner.set(old == null ? "" : texts.messages().get("banner.signedInAs", user));
        background.execute(() -> {
            if (old != null) {
                int n = coordinator.cancelUser(old, "account switched to " + user);
                if (n > 0) {
                    log.info("switched from {} to {}: cancelled {} run(s) of {}", old, user, n, old);
                }
            }
            java.util.Optional<String> problem;
            try {
                problem = prepare.apply(user);
            } catch (RuntimeException e) {
                log.warn("could not get {} ready to sync: {}", user, e.getMessage());
                problem = java.util.Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
            }
            problem.ifPresent(p -> ui.execute(() -> {
                if (user.equals(currentUser.get())) {
                    banner.set(texts.messages().get("banner.accountNotReady", user, p));
                }
            }));
            tracker.setUser(user);
        });
    }

    /**
     * After signing in to an account, its keys that are due (per {@code due}) are synced, as when the
     * window comes to the foreground.
     */
    public void switchAccountAndSync(String user, java.util.function.Predicate<TaskKey> due) {
        boolean changed = user != null && !user.equals(currentUser.get()) && accounts.contains(user);
        switchAccount(user);
        if (changed) {
            backgroundTrigger(TaskSource.FOREGROUND, due);
        }
    }

    /** "Sync now" on one card. */
    public void syncNow(Scope scope) {
        trigger(scope, TaskSource.MANUAL, false, false);
    }

    /** "Sync all": every scope of the signed-in user. */
    public void syncAll() {
        for (Scope s : Scope.values()) {
            syncNow(s);
        }
    }

    /** "Retry" after a failure. */
    public void retry(Scope scope) {
        trigger(scope, TaskSource.RETRY, false, false);
    }

    /** "Sync again after this": one follow-up run after the running one. */
    public void syncAgainAfter(Scope scope) {
        trigger(scope, TaskSource.MANUAL, true, false);
    }

    /** "Check again" on a card that needs attention. */
    public void checkAgain(Scope scope) {
        trigger(scope, TaskSource.MANUAL, false, true);
    }

    /**
     * "Discard and resend" on a card that needs attention: gives up confirming the unknown push; its
     * edits are sent again under a new key (the server applies each change at most once).
     */
    public void discardUnconfirmed(Scope scope) {
        triggers.discardUnconfirmed(new TaskKey(currentUser.get(), scope));
    }

    /** "Cancel" a running run of this process. */
    public void cancel(Scope scope) {
        triggers.cancel(new TaskKey(currentUser.get(), scope));
    }

    /**
     * A trigger from the timer or the window, for every scope of the signed-in user whose key is
     * {@code due} and that the {@link TriggerGate} lets through; a refused one is logged and shown as
     * skipped on its card.
     */
    public void backgroundTrigger(TaskSource source, java.util.function.Predicate<TaskKey> due) {
        String user = currentUser.get();
        if (user == null) {
            return;
        }
        for (Scope s : Scope.values()) {
            // the "synced moments ago" rule (due) records its skip in the history when it applies
            triggers.gated(new TaskKey(user, s), source, false, due);
        }
    }

    private void trigger(Scope scope, TaskSource source, boolean followUp, boolean checkAgain) {
        triggers.fromCard(new TaskKey(currentUser.get(), scope), source, followUp, checkAgain);
    }

    /** The running run of a card, if any (for the view's tooltip). */
    public java.util.Optional<RunView> running(Scope scope) {
        return cards.get(scope).status() instanceof KeyStatus.Running r
                ? java.util.Optional.of(r.run())
                : java.util.Optional.empty();
    }
}
