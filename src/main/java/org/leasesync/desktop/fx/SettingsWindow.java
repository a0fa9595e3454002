package org.leasesync.desktop.fx;

import javafx.stage.Window;
import org.leasesync.desktop.Messages;

/**
 * The settings dialog and its view model. The view model lives as long as the window (the settings
 * apply to the running window through it); the dialog is built the first time it opens, and then kept
 * and shown again. Apart from {@link AppAssembly} so that the composition root does not also manage
 * the dialog's lazy life.
 *
 * <p>FX thread only.
 */
final class SettingsWindow {

    private final SettingsViewModel model;
    private final AccountsAssembly accounts;
    private final Window owner;
    private final Messages messages;
    private SettingsDialog dialog;

    SettingsWindow(SettingsViewModel model, AccountsAssembly accounts, Window owner, Messages messages) {
        this.model = model;
        this.accounts = accounts;
        this.owner = owner;
        this.messages = messages;
    }

    /** Builds the dialog unless it was built already, runs {@code beforeShow}, then shows the dialog. */
    void open(Runnable beforeShow) {
        if (dialog == null) {
            dialog = new SettingsDialog(model, accounts.accounts(), accounts::openNew, owner, messages);
        }
        beforeShow.run();
        dialog.show();
    }

    boolean showing() {
        return dialog != null && dialog.stage().isShowing();
    }

    /** Hides the dialog if it was ever opened. */
    void hide() {
        if (dialog != null) {
            dialog.stage().hide();
        }
    }

    SettingsViewModel model() {
        return model;
    }
}
