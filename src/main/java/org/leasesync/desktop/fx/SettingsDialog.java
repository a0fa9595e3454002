package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.StringConverter;
import org.leasesync.desktop.Language;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StartOptions;

/**
 * The settings dialog: intervals, notifications, start at login, language, and the account shown
 * with a button to sign in (or add an account) — never a token field: tokens are the sign-in's,
 * kept in the keyring. Thin: the fields are bound to {@link SettingsViewModel} and
 * {@link AccountsViewModel}; Save calls {@link SettingsViewModel#save()} and closes only when it
 * succeeded. FX thread.
 */
final class SettingsDialog {

    private final Stage stage = new Stage();
    private final SettingsViewModel vm;

    /** @param signIn opens the Sign in dialog (over this one) */
    SettingsDialog(SettingsViewModel vm, AccountsViewModel accounts, Runnable signIn, Window owner, Messages m) {
        this.vm = vm;
        stage.initOwner(owner);
        stage.initModality(Modality.WINDOW_MODAL);
        stage.setTitle(m.get("settings.title"));

        GridPane grid = new GridPane();
        grid.setHgap(12);
        grid.setVgap(6);
        ColumnConstraints labels = new ColumnConstraints();
        labels.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        ColumnConstraints fields = new ColumnConstraints();
        fields.setHgrow(Priority.ALWAYS);
        fields.setFillWidth(true);
        grid.getColumnConstraints().addAll(labels, fields);
        int row = 0;

        grid.add(section(m.get("settings.section.sync")), 0, row++, 2, 1);
        TextField schedule = field("settings-schedule-interval", vm.scheduleIntervalProperty());
        row = add(
                grid,
                row,
                m.get("settings.scheduleInterval"),
                schedule,
                m.get("settings.scheduleInterval.help"),
                vm.commandLineNote(StartOptions.SCHEDULE_INTERVAL),
                "settings-schedule-interval-note");
        grid.add(
                FieldErrors.line("settings-schedule-interval-error", vm.scheduleIntervalErrorProperty(), schedule),
                1,
                row++);
        TextField foreground = field("settings-foreground-min-interval", vm.foregroundMinIntervalProperty());
        row = add(
                grid,
                row,
                m.get("settings.foregroundMinInterval"),
                foreground,
                m.get("settings.foregroundMinInterval.help"),
                vm.commandLineNote(StartOptions.FOREGROUND_MIN_INTERVAL),
                "settings-foreground-min-interval-note");
        grid.add(
                FieldErrors.line(
                        "settings-foreground-min-interval-error", vm.foregroundMinIntervalErrorProperty(), foreground),
                1,
                row++);

        grid.add(section(m.get("settings.section.desktop")), 0, row++, 2, 1);
        CheckBox notify = new CheckBox(m.get("menu.notifications"));
        notify.setId("settings-notifications");
        notify.selectedProperty().bindBidirectional(vm.notificationsProperty());
        grid.add(notify, 1, row++);
        CheckBox login = new CheckBox(
                vm.startAtLoginAvailable() ? m.get("menu.startAtLogin") : m.get("menu.startAtLogin.unavailable"));
        login.setId("settings-autostart");
        login.setDisable(!vm.startAtLoginAvailable());
        login.selectedProperty().bindBidirectional(vm.startAtLoginProperty());
        grid.add(login, 1, row++);
        ComboBox<Language> language = new ComboBox<>();
        language.setId("settings-language");
        language.getItems().setAll(Language.values());
        language.setConverter(new StringConverter<>() {
            @Override
            public String toString(Language l) {
                return l == null ? "" : m.get("language." + l.name());
            }

            @Override
            public Language fromString(String s) {
                return null;
            }
        });
        language.valueProperty().bindBidirectional(vm.languageProperty());
        row = add(grid, row, m.get("settings.language"), language, m.get("settings.nextStart"), "", null);

        grid.add(section(m.get("settings.section.account")), 0, row++, 2, 1);
        Label account = new Label();
        account.setId("settings-account");
        account.setWrapText(true);
        account.textProperty().bind(accounts.currentProperty());
        Button signInButton = new Button();
        signInButton.setId("settings-sign-in");
        signInButton
                .textProperty()
                .bind(javafx.beans.binding.Bindings.when(accounts.anySignedInProperty())
                        .then(m.get("menu.addAccount"))
                        .otherwise(m.get("menu.signIn")));
        signInButton.setOnAction(e -> signIn.run());
        signInButton.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        HBox.setHgrow(account, Priority.ALWAYS);
        account.setMaxWidth(Double.MAX_VALUE);
        HBox accountRow = new HBox(12, account, signInButton);
        accountRow.setAlignment(Pos.CENTER_LEFT);
        row = add(
                grid,
                row,
                m.get("settings.account"),
                accountRow,
                m.get("settings.account.help"),
                vm.commandLineNote(StartOptions.SERVER),
                "settings-account-note");

        // each field's error is on its own reserved line under it, and the file's error has its line
        // here: an error appearing or going never moves Save and Cancel
        Label error = FieldErrors.line("settings-error", vm.saveErrorProperty(), null);
        error.getStyleClass().add("settings-error");

        Button save = new Button(m.get("settings.save"));
        save.setId("settings-save");
        save.setDefaultButton(true);
        save.getStyleClass().add("accent");
        save.setOnAction(e -> {
            if (vm.save()) {
                stage.hide();
            }
        });
        Button cancel = new Button(m.get("settings.cancel"));
        cancel.setId("settings-cancel");
        cancel.setCancelButton(true);
        cancel.setOnAction(e -> stage.hide());
        HBox buttons = new HBox(8, cancel, save);
        buttons.setAlignment(Pos.CENTER_RIGHT);

        VBox root = new VBox(12, grid, error, buttons);
        root.setPadding(new Insets(16));
        root.setPrefWidth(640);
        Scene scene = new Scene(root);
        AppStyle.apply(scene, m.locale());
        stage.setScene(scene);
        stage.setMinWidth(520);
    }

    private static Label section(String text) {
        Label l = new Label(text);
        l.getStyleClass().add("settings-section");
        GridPane.setMargin(l, new Insets(8, 0, 0, 0));
        return l;
    }

    private static TextField field(String id, javafx.beans.property.StringProperty value) {
        TextField f = new TextField();
        f.setId(id);
        f.textProperty().bindBidirectional(value);
        return f;
    }

    /** A labelled field with its help line and, when the command line set it, the note saying so. */
    private static int add(
            GridPane grid,
            int row,
            String label,
            javafx.scene.layout.Region field,
            String help,
            String note,
            String noteId) {
        Label l = new Label(label);
        if (field instanceof javafx.scene.control.Control c) {
            l.setLabelFor(c);
        }
        field.setMaxWidth(Double.MAX_VALUE);
        grid.add(l, 0, row);
        grid.add(field, 1, row++);
        if (!help.isEmpty()) {
            Label h = new Label(help);
            h.getStyleClass().add("hint");
            h.setWrapText(true);
            grid.add(h, 1, row++);
        }
        if (!note.isEmpty()) {
            Label n = new Label(note);
            n.setId(noteId);
            n.getStyleClass().add("settings-note");
            n.setWrapText(true);
            grid.add(n, 1, row++);
        }
        return row;
    }

    /** Shows the dialog with the saved values. */
    void show() {
        vm.reset();
        stage.show();
        stage.toFront();
    }

    Stage stage() {
        return stage;
    }
}
