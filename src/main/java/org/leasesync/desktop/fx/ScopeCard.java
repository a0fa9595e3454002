package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;
import org.leasesync.lease.Scope;

/** One scope's card: title, status line, detail line and its buttons. Thin: binds and forwards. */
final class ScopeCard extends VBox {

    private final Button primary;
    private final Button signIn;

    /** @param signInAgain opens the Sign in dialog for the signed-in account (the card is signed out) */
    ScopeCard(ScopeCardModel model, MainViewModel vm, Runnable signInAgain) {
        Scope scope = model.scope();
        String id = scope.wireName();
        getStyleClass().add("scope-card");
        setId("card-" + id);
        setSpacing(6);
        setPadding(new Insets(14, 16, 14, 16));

        Label title = new Label(model.title());
        title.getStyleClass().add("card-title");
        Label dot = new Label("●");
        dot.getStyleClass().add("state-dot");
        Label headline = new Label();
        headline.setId("status-" + id);
        headline.getStyleClass().add("card-status");
        headline.setWrapText(true);
        headline.textProperty().bind(model.headlineProperty());
        Label detail = new Label();
        detail.setId("detail-" + id);
        detail.getStyleClass().add("card-detail");
        detail.setWrapText(true);
        detail.textProperty().bind(model.detailProperty());
        detail.visibleProperty().bind(detail.textProperty().isNotEmpty());
        detail.managedProperty().bind(detail.visibleProperty());
        model.kindProperty().addListener((o, a, b) -> stateClass(b));
        stateClass(model.kindProperty().get());

        Messages m = model.messages();
        Button sync = button(m.get("card.syncNow"), "sync-" + id, true);
        this.primary = sync;
        sync.setOnAction(e -> vm.syncNow(scope));
        Button retry = button(m.get("card.retry"), "retry-" + id, false);
        retry.setOnAction(e -> vm.retry(scope));
        bindVisible(retry, model.retryVisibleProperty());
        Button check = button(m.get("card.checkAgain"), "check-" + id, false);
        check.setOnAction(e -> vm.checkAgain(scope));
        bindVisible(check, model.checkAgainVisibleProperty());
        Button discard = button(m.get("card.discard"), "discard-" + id, false);
        discard.setOnAction(e -> vm.discardUnconfirmed(scope));
        bindVisible(discard, model.checkAgainVisibleProperty());
        Button signInButton = button(m.get("card.signIn"), "signin-" + id, true);
        this.signIn = signInButton;
        signInButton.setOnAction(e -> signInAgain.run());
        bindVisible(signInButton, model.signInVisibleProperty());
        // one accented button per card: signed out, signing in is what helps
        model.signInVisibleProperty().addListener((o, a, signedOut) -> {
            if (signedOut) {
                sync.getStyleClass().remove("accent");
            } else if (!sync.getStyleClass().contains("accent")) {
                sync.getStyleClass().add("accent");
            }
        });
        Button resolve = button(m.get("card.resolve"), "resolve-" + id, false);
        resolve.setOnAction(e -> vm.resolve(scope));
        bindVisible(resolve, model.resolveVisibleProperty());
        Button followUp = button(m.get("card.followUp"), "followup-" + id, false);
        followUp.setOnAction(e -> vm.syncAgainAfter(scope));
        bindVisible(followUp, model.followUpVisibleProperty());
        Button cancel = button(m.get("card.cancel"), "cancel-" + id, false);
        cancel.setOnAction(e -> vm.cancel(scope));
        bindVisible(cancel, model.cancelVisibleProperty());
        // A button that appears because a click changed the card's state takes no click for a moment:
        // the second click of a double-click (or a click as an automatic retry starts) must not land on it.
        for (Button appearing : new Button[] {followUp, cancel, discard}) {
            ArmDelay.afterAppearing(appearing, ArmDelay.DEFAULT);
        }

        // The top row holds the actions that start or ask for a sync; the actions that stop or give
        // something up (Cancel, Discard and resend) sit on the status line, where no other button ever
        // is, so they never appear under the pointer of the button just clicked.
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox top = new HBox(8, dot, title, spacer, resolve, retry, check, followUp, signInButton, sync);
        top.setAlignment(Pos.CENTER_LEFT);
        headline.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(headline, Priority.ALWAYS);
        HBox status = new HBox(8, headline, discard, cancel);
        status.setAlignment(Pos.CENTER_LEFT);
        javafx.scene.control.ProgressBar bar = new javafx.scene.control.ProgressBar();
        bar.setId("progress-" + id);
        bar.progressProperty().bind(model.progressProperty());
        bar.setPrefWidth(160);
        bar.setMinWidth(80);
        Label progressText = new Label();
        progressText.setId("progress-text-" + id);
        progressText.getStyleClass().add("card-detail");
        progressText.setWrapText(true);
        progressText.textProperty().bind(model.progressTextProperty());
        HBox progressRow = new HBox(8, bar, progressText);
        progressRow.setId("progress-row-" + id);
        progressRow.setAlignment(Pos.CENTER_LEFT);
        progressRow.visibleProperty().bind(model.progressVisibleProperty());
        progressRow.managedProperty().bind(progressRow.visibleProperty());
        getChildren().addAll(top, status, progressRow, detail);
    }

    /** Moves the keyboard focus to this card's main button (the card was asked for): Sign in when signed out, else Sync now. */
    void focusPrimary() {
        (signIn.isVisible() ? signIn : primary).requestFocus();
    }

    private void stateClass(KeyStatus.Kind kind) {
        getStyleClass().removeIf(c -> c.startsWith("state-") && !c.equals("state-dot"));
        getStyleClass()
                .add("state-" + kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    }

    private static Button button(String text, String id, boolean accent) {
        Button b = new Button(text);
        b.setId(id);
        if (accent) {
            b.getStyleClass().add("accent");
        }
        return b;
    }

    private static void bindVisible(Button b, javafx.beans.value.ObservableBooleanValue visible) {
        b.visibleProperty().bind(visible);
        b.managedProperty().bind(visible);
    }
}
