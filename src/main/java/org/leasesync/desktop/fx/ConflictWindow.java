package org.leasesync.desktop.fx;

import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextArea;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.leasesync.desktop.Messages;

/**
 * The conflict view: the key's conflicts on the left; the selected one's two versions side by side,
 * in full, one field a line, the lines of fields that differ marked (style class {@code differs});
 * Keep mine, Take server's (with a confirmation) and Edit and keep; the conflict copies with Restore
 * and Delete. A window of its own beside the main one. Thin: binds and forwards.
 */
final class ConflictWindow {

    private final Stage stage = new Stage();

    ConflictWindow(ConflictViewModel vm, Window main) {
        Messages m = vm.messages();
        stage.titleProperty().bind(vm.titleProperty());
        main.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, e -> stage.hide());

        ListView<ConflictViewModel.ConflictRow> list = new ListView<>(vm.conflicts());
        list.setId("conflict-list");
        list.setPrefWidth(180);
        list.setPlaceholder(new Label(m.get("conflict.none")));
        list.setCellFactory(v -> text(ConflictViewModel.ConflictRow::label));
        list.getSelectionModel().selectedItemProperty().addListener((o, a, r) -> {
            if (r != null && r != vm.selectedProperty().get()) {
                vm.select(r);
            }
        });
        vm.selectedProperty().addListener((o, a, r) -> list.getSelectionModel().select(r));

        Label mineCaption = caption("conflict-mine-caption");
        Label serverCaption = caption("conflict-server-caption");
        vm.selectedProperty().addListener((o, a, r) -> {
            mineCaption.setText(r == null ? "" : r.mineCaption());
            serverCaption.setText(r == null ? "" : r.serverCaption());
        });
        GridPane sides = new GridPane();
        sides.setHgap(12);
        sides.setVgap(4);
        sides.add(heading(m.get("conflict.mine.title")), 0, 0);
        sides.add(heading(m.get("conflict.server.title")), 1, 0);
        sides.add(mineCaption, 0, 1);
        sides.add(serverCaption, 1, 1);
        sides.add(lines(vm.mineLines(), "conflict-mine"), 0, 2);
        sides.add(lines(vm.serverLines(), "conflict-server"), 1, 2);
        for (int i = 0; i < 2; i++) {
            javafx.scene.layout.ColumnConstraints c = new javafx.scene.layout.ColumnConstraints();
            c.setPercentWidth(50);
            sides.getColumnConstraints().add(c);
        }
        Label differs = new Label();
        differs.setId("conflict-differs");
        differs.setWrapText(true);
        vm.selectedProperty().addListener((o, a, r) -> differs.setText(r == null ? "" : r.differs()));

        TextArea edit = new TextArea();
        edit.setId("conflict-edit");
        edit.getStyleClass().add("record-detail");
        edit.setPrefRowCount(5);
        edit.setPromptText(m.get("conflict.edit.prompt"));
        edit.textProperty().bindBidirectional(vm.editTextProperty());

        Button keep = new Button(m.get("conflict.keepMine"));
        keep.setId("conflict-keep-mine");
        keep.getStyleClass().add("accent");
        keep.setOnAction(e -> vm.keepMine());
        vm.selectedProperty()
                .addListener((o, a, r) -> keep.setText(r == null ? m.get("conflict.keepMine") : r.keepMineLabel()));
        Button take = new Button(m.get("conflict.takeTheirs"));
        take.setId("conflict-take-theirs");
        take.setOnAction(e -> vm.askTakeTheirs());
        Button editKeep = new Button(m.get("conflict.editAndKeep"));
        editKeep.setId("conflict-edit-keep");
        editKeep.setOnAction(e -> vm.editAndKeep());
        for (Button b : new Button[] {keep, take, editKeep}) {
            b.disableProperty().bind(vm.selectedProperty().isNull().or(vm.confirmingProperty()));
        }
        HBox actions = new HBox(8, keep, take, editKeep);
        actions.setAlignment(Pos.CENTER_LEFT);

        Label question = new Label();
        question.setId("conflict-confirm-text");
        question.setWrapText(true);
        Button yes = new Button(m.get("conflict.confirm.yes"));
        yes.setId("conflict-confirm-yes");
        yes.getStyleClass().add("danger");
        yes.setOnAction(e -> vm.confirmTakeTheirs());
        Button no = new Button(m.get("conflict.confirm.no"));
        no.setId("conflict-confirm-no");
        no.setOnAction(e -> vm.cancelTakeTheirs());
        HBox confirm = new HBox(8, question, yes, no);
        confirm.setId("conflict-confirm");
        confirm.getStyleClass().add("notice");
        confirm.setPadding(new Insets(6));
        confirm.setAlignment(Pos.CENTER_LEFT);
        confirm.visibleProperty().bind(vm.confirmingProperty());
        confirm.managedProperty().bind(confirm.visibleProperty());
        vm.confirmingProperty().addListener((o, a, asking) -> question.setText(asking ? vm.confirmText() : ""));
        yes.visibleProperty().bind(vm.confirmingProperty());
        ArmDelay.afterAppearing(yes, ArmDelay.DEFAULT); // a double click on Take server's must not confirm it

        Label message = new Label();
        message.setId("conflict-message");
        message.setWrapText(true);
        message.textProperty().bind(vm.messageProperty());

        ListView<ConflictViewModel.CopyRow> copies = new ListView<>(vm.copies());
        copies.setId("conflict-copies");
        copies.setPrefHeight(110);
        copies.setPlaceholder(new Label(m.get("conflict.copies.empty")));
        copies.setCellFactory(v -> text(ConflictViewModel.CopyRow::label));
        Button restore = new Button(m.get("conflict.copy.restore"));
        restore.setId("copy-restore");
        restore.setOnAction(e -> selected(copies).ifPresent(vm::restore));
        Button delete = new Button(m.get("conflict.copy.delete"));
        delete.setId("copy-delete");
        delete.setOnAction(e -> selected(copies).ifPresent(vm::delete));
        for (Button b : new Button[] {restore, delete}) {
            b.disableProperty()
                    .bind(copies.getSelectionModel().selectedItemProperty().isNull());
        }
        Button close = new Button(m.get("conflict.close"));
        close.setId("conflict-close");
        close.setOnAction(e -> stage.hide());
        HBox copyActions = new HBox(8, restore, delete);

        VBox detail = new VBox(
                8,
                sides,
                differs,
                edit,
                actions,
                confirm,
                message,
                new Label(m.get("conflict.copies")),
                copies,
                copyActions,
                close);
        detail.setPadding(new Insets(0, 0, 0, 8));
        HBox.setHgrow(detail, Priority.ALWAYS);
        ScrollPane scroll = new ScrollPane(new HBox(8, list, detail));
        scroll.setFitToWidth(true);
        scroll.setPadding(new Insets(12));
        Scene scene = new Scene(scroll, 980, 680);
        scene.getStylesheets().add(ConflictWindow.class.getResource("app.css").toExternalForm());
        stage.setScene(scene);
    }

    /** Shows the window (in front). */
    void show() {
        stage.show();
        stage.toFront();
    }

    Stage stage() {
        return stage;
    }

    /** A version as one label a line, wrapped rather than cut: shown in full. */
    private static VBox lines(ObservableList<ConflictViewModel.Line> lines, String id) {
        VBox box = new VBox();
        box.setId(id);
        Runnable fill = () -> box.getChildren()
                .setAll(lines.stream()
                        .map(l -> {
                            Label label = new Label(l.text());
                            label.setWrapText(true);
                            label.setMaxWidth(Double.MAX_VALUE);
                            label.getStyleClass().add("conflict-line");
                            if (l.differs()) {
                                label.getStyleClass().add("differs");
                            }
                            return label;
                        })
                        .toList());
        lines.addListener((ListChangeListener<ConflictViewModel.Line>) c -> fill.run());
        fill.run();
        return box;
    }

    private static Label heading(String text) {
        Label l = new Label(text);
        l.getStyleClass().add("card-title");
        return l;
    }

    private static Label caption(String id) {
        Label l = new Label();
        l.setId(id);
        l.setWrapText(true);
        l.getStyleClass().add("conflict-caption");
        return l;
    }

    private static <T> ListCell<T> text(java.util.function.Function<T, String> label) {
        return new ListCell<>() {
            @Override
            protected void updateItem(T item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null : label.apply(item));
            }
        };
    }

    private static <T> java.util.Optional<T> selected(ListView<T> list) {
        return java.util.Optional.ofNullable(list.getSelectionModel().getSelectedItem());
    }
}
