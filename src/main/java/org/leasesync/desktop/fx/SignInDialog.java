package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.fx.SignInViewModel.Field;

/**
 * The Sign in dialog (also Add account and Sign in again): server URL(s), user, password, device
 * name, an optional CA file and the explicit permission for plain http to another machine. Each
 * field has a line of its own under it, always there, for what is wrong with it — so every error
 * shows at once, beside its field (which is marked), and nothing moves: not the fields, not the
 * buttons. The fingerprint of an untrusted certificate is selectable text, to compare and copy.
 * Thin: bound to {@link SignInViewModel}. FX thread.
 */
final class SignInDialog {

    /** The line under a field: room for two lines of the hint's size, whether or not it has text. */
    static final double ERROR_LINE_HEIGHT = FieldErrors.LINE_HEIGHT;

    private final Stage stage = new Stage();
    private final SignInViewModel vm;
    private final PasswordField password = new PasswordField();
    private final java.util.Map<Field, Node> inputs = new java.util.EnumMap<>(Field.class);

    SignInDialog(SignInViewModel vm, Window owner, Messages m) {
        this.vm = vm;
        stage.initOwner(owner);
        // application-modal: it may open over the settings dialog, which is modal to the window too
        stage.initModality(Modality.APPLICATION_MODAL);
        stage.titleProperty().bind(vm.titleProperty());
        stage.setResizable(false);

        Label intro = new Label();
        intro.setId("signin-intro");
        intro.textProperty().bind(vm.introProperty());
        intro.setWrapText(true);
        intro.getStyleClass().add("hint");
        intro.setMinHeight(ERROR_LINE_HEIGHT);

        GridPane grid = new GridPane();
        grid.setHgap(12);
        ColumnConstraints labels = new ColumnConstraints();
        labels.setMinWidth(Region.USE_PREF_SIZE);
        ColumnConstraints fields = new ColumnConstraints();
        fields.setHgrow(Priority.ALWAYS);
        fields.setFillWidth(true);
        grid.getColumnConstraints().addAll(labels, fields);
        int row = 0;

        TextField servers = field("signin-servers", vm.serversProperty());
        servers.setPromptText(m.get("signin.servers.prompt"));
        row = add(
                grid,
                row,
                m.get("signin.servers"),
                servers,
                Field.SERVERS,
                errorLine("signin-servers-error", Field.SERVERS));
        TextField user = field("signin-user", vm.userProperty());
        row = add(grid, row, m.get("signin.user"), user, Field.USER, errorLine("signin-user-error", Field.USER));
        password.setId("signin-password");
        row = add(
                grid,
                row,
                m.get("signin.password"),
                password,
                Field.PASSWORD,
                errorLine("signin-password-error", Field.PASSWORD));
        TextField device = field("signin-device", vm.deviceProperty());
        row = add(
                grid,
                row,
                m.get("signin.device"),
                device,
                Field.DEVICE,
                errorLine("signin-device-error", Field.DEVICE));
        TextField ca = field("signin-ca-file", vm.caFileProperty());
        ca.setPromptText(m.get("signin.caFile.prompt"));
        Button choose = new Button(m.get("signin.caFile.choose"));
        choose.setId("signin-ca-choose");
        choose.setOnAction(e -> chooseCaFile(m));
        HBox.setHgrow(ca, Priority.ALWAYS);
        HBox caRow = new HBox(8, ca, choose);
        caRow.setAlignment(Pos.CENTER_LEFT);
        inputs.put(Field.CA_FILE, ca);
        // the CA file's line shows either what is wrong with the file or, for an untrusted certificate,
        // its fingerprint: selectable, so the user can compare it with their operator's and copy it
        TextArea fingerprint = new TextArea();
        fingerprint.setId("signin-fingerprint");
        fingerprint.setEditable(false);
        fingerprint.setWrapText(true);
        fingerprint.setFocusTraversable(true);
        fingerprint.getStyleClass().add("fingerprint");
        fingerprint.textProperty().bind(vm.fingerprintProperty());
        fingerprint.visibleProperty().bind(vm.fingerprintProperty().isNotEmpty());
        fingerprint.setPrefRowCount(2);
        FieldErrors.hold(fingerprint);
        javafx.scene.control.Tooltip fix = new javafx.scene.control.Tooltip();
        fix.textProperty().bind(vm.errorProperty(Field.CA_FILE));
        fingerprint.setTooltip(fix);
        Label caError = errorLine("signin-ca-file-error", Field.CA_FILE);
        caError.visibleProperty().bind(vm.fingerprintProperty().isEmpty());
        StackPane caLine = new StackPane(caError, fingerprint);
        caLine.setAlignment(Pos.TOP_LEFT);
        FieldErrors.hold(caLine);
        row = add(grid, row, m.get("signin.caFile"), caRow, null, caLine);
        CheckBox insecure = new CheckBox(m.get("signin.allowInsecure"));
        insecure.setId("signin-allow-insecure");
        insecure.setWrapText(true);
        insecure.selectedProperty().bindBidirectional(vm.allowInsecureHttpProperty());
        GridPane.setMargin(insecure, new Insets(6, 0, 0, 0));
        grid.add(insecure, 1, row);

        Label error = new Label();
        error.setId("signin-error");
        error.getStyleClass().add("settings-error");
        error.setWrapText(true);
        error.textProperty().bind(vm.errorProperty());
        FieldErrors.hold(error);
        FieldErrors.tooltip(error);

        ProgressIndicator spinner = new ProgressIndicator();
        spinner.setMaxSize(16, 16);
        spinner.visibleProperty().bind(vm.busyProperty());
        Label status = new Label();
        status.setId("signin-status");
        status.textProperty().bind(vm.statusProperty());
        status.getStyleClass().add("hint");
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        Button cancel = new Button(m.get("settings.cancel"));
        cancel.setId("signin-cancel");
        cancel.setCancelButton(true);
        cancel.setOnAction(e -> close());
        Button submit = new Button(m.get("signin.submit"));
        submit.setId("signin-submit");
        submit.setDefaultButton(true);
        submit.getStyleClass().add("accent");
        submit.disableProperty().bind(vm.busyProperty());
        submit.setOnAction(e -> vm.submit(password.getCharacters()));
        HBox buttons = new HBox(8, spinner, status, spacer, cancel, submit);
        buttons.setAlignment(Pos.CENTER_LEFT);

        VBox root = new VBox(10, intro, grid, error, buttons);
        root.setPadding(new Insets(16));
        root.setPrefWidth(620);
        root.getStyleClass().add("sign-in");
        Scene scene = new Scene(root);
        AppStyle.apply(scene, m.locale());
        stage.setScene(scene);
        stage.setOnCloseRequest(e -> vm.cancel());

        vm.clearPasswordProperty().addListener((o, a, b) -> password.clear());
        vm.closeProperty().addListener((o, a, b) -> stage.hide());
        vm.focusProperty().addListener((o, a, f) -> focus(f));
        inputs.put(Field.SERVERS, servers);
        inputs.put(Field.USER, user);
        inputs.put(Field.PASSWORD, password);
        inputs.put(Field.DEVICE, device);
    }

    private void chooseCaFile(Messages m) {
        FileChooser chooser = new FileChooser();
        chooser.setTitle(m.get("signin.caFile.title"));
        chooser.getExtensionFilters()
                .addAll(
                        new FileChooser.ExtensionFilter(m.get("signin.caFile.pem"), "*.pem", "*.crt", "*.cer"),
                        new FileChooser.ExtensionFilter(m.get("signin.caFile.any"), "*"));
        java.io.File f = chooser.showOpenDialog(stage);
        if (f != null) {
            vm.caFileProperty().set(f.getPath());
        }
    }

    private TextField field(String id, javafx.beans.property.StringProperty value) {
        TextField f = new TextField();
        f.setId(id);
        f.textProperty().bindBidirectional(value);
        return f;
    }

    /** The line under a field for what is wrong with it; it marks the field while it has text. */
    private Label errorLine(String id, Field field) {
        Label l = FieldErrors.line(id, vm.errorProperty(field), null);
        vm.errorProperty(field).addListener((o, a, b) -> {
            Node input = inputs.get(field); // looked up late: some fields are made after their line
            if (input != null) {
                input.pseudoClassStateChanged(FieldErrors.DANGER, !b.isEmpty());
            }
        });
        return l;
    }

    private int add(GridPane grid, int row, String label, Node input, Field field, Region line) {
        Label l = new Label(label);
        if (input instanceof Control c) {
            l.setLabelFor(c);
            c.setMaxWidth(Double.MAX_VALUE);
        }
        if (field != null) {
            inputs.put(field, input);
        }
        grid.add(l, 0, row);
        grid.add(input, 1, row++);
        grid.add(line, 1, row++);
        return row;
    }

    private void focus(Field f) {
        Node n = inputs.get(f);
        if (n != null) {
            n.requestFocus();
        }
    }

    /** Shows the dialog as the view model was opened ({@code openNew}, {@code openAgain}), the keyboard in its first field. */
    void show() {
        stage.show();
        stage.toFront();
        focus(vm.focusProperty().get());
    }

    private void close() {
        vm.cancel();
        stage.hide();
    }

    Stage stage() {
        return stage;
    }
}
