package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.Scope;

/** The data tab: records, the outbox with conflicts (both versions), and a small edit form. */
final class DataView extends VBox {

    /** The tab in a scroll pane: in a small window its parts keep their minimum sizes and it scrolls. */
    static javafx.scene.control.ScrollPane scrolling(DataViewModel vm) {
        javafx.scene.control.ScrollPane pane = RenderMemory.uncachedScrollPane(new DataView(vm));
        pane.setId("data-scroll");
        pane.setFitToWidth(true);
        pane.setFitToHeight(true);
        return pane;
    }

    DataView(DataViewModel vm) {
        setSpacing(10);
        setPadding(new Insets(14));
        Messages m = vm.messages();
        ChoiceBox<Scope> scope = scopeChoice(m);
        scope.setId("data-scope");
        scope.valueProperty().bindBidirectional(vm.scopeProperty());
        Label summary = new Label();
        summary.setId("data-summary");
        summary.textProperty().bind(vm.summaryProperty());
        Button reload = new Button(m.get("view.reload"));
        reload.setId("data-reload");
        reload.setOnAction(e -> vm.load());
        HBox head = new HBox(10, new Label(m.get("view.scope")), scope, reload, summary);
        head.setAlignment(Pos.CENTER_LEFT);

        TableView<DataViewModel.RecordRow> records = new TableView<>(vm.records());
        records.setId("data-records");
        records.getColumns().add(dataCol(m.get("data.col.record"), r -> r.id(), 140));
        records.getColumns().add(col(m.get("data.col.version"), r -> r.version(), 70));
        TableColumn<DataViewModel.RecordRow, Object> content =
                dataCol(m.get("data.col.content"), r -> r.oneLine(), 500);
        content.setCellFactory(c -> new javafx.scene.control.TableCell<>() {
            @Override
            protected void updateItem(Object item, boolean empty) {
                super.updateItem(item, empty);
                DataViewModel.RecordRow row =
                        empty || getTableRow() == null ? null : getTableRow().getItem();
                setText(empty || item == null ? null : item.toString());
                setTooltip(row == null ? null : new javafx.scene.control.Tooltip(row.pretty()));
            }
        });
        records.getColumns().add(content);
        records.getColumns().add(col(m.get("data.col.changedOnServer"), r -> r.syncedAt(), 130));
        records.getColumns().add(col(m.get("data.col.localEdit"), r -> r.localEdit(), 90));
        records.setPlaceholder(new Label(m.get("data.records.empty")));
        // the selected record's content, pretty-printed
        TextArea recordDetail = new TextArea();
        recordDetail.setId("data-record-detail");
        recordDetail.setEditable(false);
        recordDetail.setWrapText(false);
        recordDetail.setPrefWidth(300);
        recordDetail.setMinWidth(220);
        records.setPrefWidth(300); // the table takes the rest of the width (it scrolls sideways)
        records.setMinHeight(150); // a few rows always show; the tab scrolls in a small window
        recordDetail.setPromptText(m.get("data.record.prompt"));
        recordDetail.getStyleClass().add("record-detail");
        records.getSelectionModel()
                .selectedItemProperty()
                .addListener((o, a, r) -> recordDetail.setText(r == null ? "" : r.pretty()));
        HBox.setHgrow(records, Priority.ALWAYS);
        HBox recordsPane = new HBox(8, records, recordDetail);
        VBox.setVgrow(recordsPane, Priority.ALWAYS);

        Button showMore = new Button(m.get("data.more"));
        showMore.setId("data-more");
        showMore.visibleProperty().bind(vm.moreProperty());
        showMore.managedProperty().bind(vm.moreProperty());
        showMore.setOnAction(e -> vm.loadMore());
        TableView<DataViewModel.OutboxRow> outbox = new TableView<>(vm.outbox());
        outbox.setId("data-outbox");
        outbox.getColumns().add(dataCol(m.get("data.col.record"), r -> r.recordId(), 120));
        outbox.getColumns().add(col(m.get("data.col.state"), r -> r.shownState(), 80));
        outbox.getColumns().add(dataCol(m.get("data.col.mine"), r -> r.mine(), 320));
        outbox.getColumns().add(dataCol(m.get("data.col.theirs"), r -> r.theirs(), 320));
        outbox.getColumns().add(col(m.get("data.col.made"), r -> r.madeAt(), 80));
        outbox.setPlaceholder(new Label(m.get("data.outbox.empty")));
        outbox.setPrefHeight(190);
        outbox.setMinHeight(150);
        // both versions in full, what differs, and a confirmation before an edit is dropped: the conflict view
        Button resolve = new Button(m.get("data.resolve"));
        resolve.setId("resolve-conflict");
        resolve.setOnAction(e -> vm.openConflicts(outbox.getSelectionModel().getSelectedItem()));
        Button discard = new Button(m.get("data.discard"));
        discard.setId("outbox-discard");
        discard.setOnAction(e -> selectedSetAside(outbox).ifPresent(r -> vm.discard(r.changeId())));
        Button again = new Button(m.get("data.sendAgain"));
        again.setId("outbox-send-again");
        again.setOnAction(e -> selectedSetAside(outbox).ifPresent(r -> vm.sendAgain(r.changeId())));
        HBox conflict = new HBox(8, new Label(m.get("data.selectedConflict")), resolve);
        conflict.setAlignment(Pos.CENTER_LEFT);
        HBox refused = new HBox(8, new Label(m.get("data.selectedRefused")), discard, again);
        refused.setAlignment(Pos.CENTER_LEFT);
        for (HBox box : java.util.List.of(conflict, refused)) {
            box.getChildren()
                    .forEach(n ->
                            ((javafx.scene.layout.Region) n).setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE));
        }
        // the two groups wrap to two lines in a narrow window rather than cutting their buttons short
        javafx.scene.layout.FlowPane conflictButtons = new javafx.scene.layout.FlowPane(24, 6, conflict, refused);
        conflictButtons.setAlignment(Pos.CENTER_LEFT);

        TextField id = new TextField();
        id.setId("edit-id");
        id.setPromptText(m.get("data.edit.idPrompt"));
        TextArea payload = new TextArea();
        payload.setId("edit-payload");
        payload.setPromptText(m.get("data.edit.payloadPrompt"));
        payload.setPrefRowCount(2);
        HBox.setHgrow(payload, Priority.ALWAYS);
        id.textProperty().bindBidirectional(vm.editor().recordIdProperty());
        payload.textProperty().bindBidirectional(vm.editor().payloadProperty());
        records.getSelectionModel().selectedItemProperty().addListener((o, a, r) -> {
            if (r != null) {
                vm.startEditing(r);
                id.setText(r.id());
                payload.setText(r.content());
            }
        });
        // The form belongs to the key shown: switching scope or account empties it, so a Save cannot
        // put one scope's record into another (found in a new-user trial).
        Runnable clearForm = () -> {
            id.clear();
            payload.clear();
        };
        vm.scopeProperty().addListener((o, a, b) -> clearForm.run());
        vm.currentUserProperty().addListener((o, a, b) -> clearForm.run());
        Button save = new Button(m.get("data.edit.save"));
        save.setId("edit-save");
        save.getStyleClass().add("accent");
        save.setOnAction(e -> vm.saveEdit(id.getText(), payload.getText()));
        save.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        Label message = new Label();
        message.setId("data-message");
        message.textProperty().bind(vm.messageProperty());
        HBox form = new HBox(8, id, payload, save);
        form.setAlignment(Pos.CENTER_LEFT);

        getChildren()
                .addAll(
                        head,
                        recordsPane,
                        showMore,
                        new Label(m.get("data.outbox.title")),
                        outbox,
                        conflictButtons,
                        new Label(m.get("data.edit.title")),
                        form,
                        message);
    }

    private static java.util.Optional<DataViewModel.OutboxRow> selectedSetAside(TableView<DataViewModel.OutboxRow> t) {
        return java.util.Optional.ofNullable(t.getSelectionModel().getSelectedItem())
                .filter(DataViewModel.OutboxRow::isSetAside);
    }

    /**
     * A column of the user's own data (ids, record content, owners, task keys): shown as it is, in no
     * language, and marked with the style class {@value #USER_DATA} so that a scan for untranslated
     * words can pass over it.
     */
    static <S> TableColumn<S, Object> dataCol(
            String title, java.util.function.Function<S, Object> value, double width) {
        TableColumn<S, Object> c = col(title, value, width);
        c.getStyleClass().add(USER_DATA);
        return c;
    }

    /** The style class of a column that shows user data as it is ({@link #dataCol}). */
    static final String USER_DATA = "user-data";

    static <S> TableColumn<S, Object> col(String title, java.util.function.Function<S, Object> value, double width) {
        TableColumn<S, Object> c = new TableColumn<>(title);
        c.setCellValueFactory(cell -> new javafx.beans.property.ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
        c.setPrefWidth(width);
        c.setCellFactory(col -> TableCells.withTooltip()); // a cut cell shows its whole text on hovering
        return c;
    }

    static ChoiceBox<Scope> scopeChoice(Messages m) {
        ChoiceBox<Scope> box = new ChoiceBox<>(javafx.collections.FXCollections.observableArrayList(Scope.values()));
        box.setConverter(new StringConverter<>() {
            @Override
            public String toString(Scope s) {
                return s == null ? "" : StatusTexts.title(s, m);
            }

            @Override
            public Scope fromString(String s) {
                return null;
            }
        });
        return box;
    }
}
