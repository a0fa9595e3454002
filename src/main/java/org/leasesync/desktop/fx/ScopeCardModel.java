package org.leasesync.desktop.fx;

import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.leasesync.desktop.CardOverlay;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.Scope;
import org.leasesync.run.RunView;

/**
 * The view model of one scope's card: read-only properties the view binds to. Written only by
 * {@link MainViewModel} on the FX thread (or the test thread).
 */
public final class ScopeCardModel {

    private final Scope scope;
    private final Messages messages;
    private final ReadOnlyStringWrapper headline;
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<KeyStatus.Kind> kind = new ReadOnlyObjectWrapper<>(KeyStatus.Kind.NEVER_SYNCED);
    private final ReadOnlyBooleanWrapper retryVisible = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper checkAgainVisible = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper signInVisible = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper cancelVisible = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper resolveVisible = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper followUpVisible = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper progressVisible = new ReadOnlyBooleanWrapper(false);
    private final javafx.beans.property.ReadOnlyDoubleWrapper progress =
            new javafx.beans.property.ReadOnlyDoubleWrapper(
                    javafx.scene.control.ProgressIndicator.INDETERMINATE_PROGRESS);
    private final ReadOnlyStringWrapper progressText = new ReadOnlyStringWrapper("");
    private volatile KeyStatus status;

    /** @param messages the texts of the card (its title, "Loading…", the buttons) */
    ScopeCardModel(Scope scope, Messages messages) {
        this.scope = scope;
        this.messages = java.util.Objects.requireNonNull(messages);
        this.headline = new ReadOnlyStringWrapper(messages.get("status.neverSynced"));
    }

    /** The texts of the card, in the window's language. */
    public Messages messages() {
        return messages;
    }

    void apply(KeyStatus s, StatusTexts texts) {
        apply(s, CardOverlay.none(java.time.Instant.EPOCH), texts);
    }

    /** Shows {@code s} under {@code overlay} (paused, offline). */
    void apply(KeyStatus s, CardOverlay overlay, StatusTexts texts) {
        apply(s, overlay, texts, overlay.now());
    }

    /** Shows {@code s} under {@code overlay} at {@code now} ("Synced just now" right after a sync). */
    void apply(KeyStatus s, CardOverlay overlay, StatusTexts texts, java.time.Instant now) {
        status = s;
        KeyStatus.Kind shown = overlay.shown(s);
        headline.set(texts.headline(s, overlay, now));
        detail.set(texts.detail(s, overlay));
        kind.set(shown);
        retryVisible.set(shown == KeyStatus.Kind.FAILED);
        checkAgainVisible.set(s instanceof KeyStatus.NeedsAttention);
        signInVisible.set(shown == KeyStatus.Kind.SIGNED_OUT);
        resolveVisible.set(overlay.conflicts(scope) > 0);
        if (s instanceof KeyStatus.Running running) {
            RunView r = running.run();
            cancelVisible.set(r.local());
            followUpVisible.set(r.local() && !r.followUpQueued());
            progressVisible.set(true);
            progress.set(
                    r.counts().pushedFraction().orElse(javafx.scene.control.ProgressIndicator.INDETERMINATE_PROGRESS));
            progressText.set(texts.progress(r));
        } else {
            cancelVisible.set(false);
            followUpVisible.set(false);
            progressVisible.set(false);
            progress.set(javafx.scene.control.ProgressIndicator.INDETERMINATE_PROGRESS);
            progressText.set("");
        }
    }

    void reset() {
        status = null;
        headline.set(messages.get("status.loading"));
        detail.set("");
        kind.set(KeyStatus.Kind.NEVER_SYNCED);
        retryVisible.set(false);
        checkAgainVisible.set(false);
        signInVisible.set(false);
        resolveVisible.set(false);
        cancelVisible.set(false);
        followUpVisible.set(false);
        progressVisible.set(false);
        progressText.set("");
    }

    /** Shows a one-off message (e.g. a trigger could not be submitted) in the detail line. */
    void note(String text) {
        detail.set(text);
    }

    public Scope scope() {
        return scope;
    }

    public String title() {
        return StatusTexts.title(scope, messages);
    }

    /** The last snapshot applied, or null before the first. */
    public KeyStatus status() {
        return status;
    }

    public ReadOnlyStringProperty headlineProperty() {
        return headline.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty detailProperty() {
        return detail.getReadOnlyProperty();
    }

    /** The state shown: the stored one, or {@code PAUSED} / {@code OFFLINE} under the overlay. */
    public ReadOnlyObjectProperty<KeyStatus.Kind> kindProperty() {
        return kind.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty retryVisibleProperty() {
        return retryVisible.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty checkAgainVisibleProperty() {
        return checkAgainVisible.getReadOnlyProperty();
    }

    /** Whether the card offers Sign in (the server refused the account's session). */
    public ReadOnlyBooleanProperty signInVisibleProperty() {
        return signInVisible.getReadOnlyProperty();
    }

    /** Whether the card offers Resolve (conflicts of its key wait for the user), whatever its state. */
    public ReadOnlyBooleanProperty resolveVisibleProperty() {
        return resolveVisible.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty cancelVisibleProperty() {
        return cancelVisible.getReadOnlyProperty();
    }

    /** Whether the progress bar shows (a run is going on). */
    public ReadOnlyBooleanProperty progressVisibleProperty() {
        return progressVisible.getReadOnlyProperty();
    }

    /**
     * The progress bar's value: the pushed fraction in [0, 1] once the push stage counted the outbox,
     * else {@link javafx.scene.control.ProgressIndicator#INDETERMINATE_PROGRESS} (-1: pulling, total unknown).
     */
    public javafx.beans.property.ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    /** The text beside the bar, e.g. "Pushed 40 of 120 changes"; empty when nothing runs. */
    public ReadOnlyStringProperty progressTextProperty() {
        return progressText.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty followUpVisibleProperty() {
        return followUpVisible.getReadOnlyProperty();
    }
}
