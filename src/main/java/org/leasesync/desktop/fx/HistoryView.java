package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.leasesync.desktop.Messages;
import org.leasesync.lease.Scope;

/** The history tab: one row per run of the chosen task key, and one per skipped timer trigger. */
final class HistoryView extends VBox {

    /** The widest a column gets; a longer cell is cut, with its whole text in its tooltip and the detail view. */
    static final double MAX_COLUMN_WIDTH = 420;

    HistoryView(HistoryViewModel vm) {
        setSpacing(10);
        setPadding(new Insets(14));
        Messages m = vm.messages();
        ChoiceBox<Scope> scope = DataView.scopeChoice(m);
        scope.setId("history-scope");
        scope.valueProperty().bindBidirectional(vm.scopeProperty());
        Button reload = new Button(m.get("view.reload"));
        reload.setId("history-reload");
        reload.setOnAction(e -> vm.load());
        Label about = new Label(m.get("history.about"));
        about.setWrapText(true);
        HBox controls = new HBox(10, new Label(m.get("view.scope")), scope, reload);
        controls.setAlignment(Pos.CENTER_LEFT);
        VBox head = new VBox(6, controls, about); // the explanation wraps on its own line
        TableView<HistoryViewModel.Row> table = new TableView<>(vm.rows());
        table.setId("history-table");
        table.getColumns().add(DataView.col(m.get("history.col.started"), r -> r.started(), 80));
        table.getColumns().add(DataView.col(m.get("history.col.sources"), r -> r.sources(), 230));
        table.getColumns().add(DataView.col(m.get("history.col.result"), r -> r.result(), 150));
        table.getColumns().add(DataView.col(m.get("history.col.stages"), r -> r.stages(), 260));
        table.getColumns().add(DataView.col(m.get("history.col.epoch"), r -> r.epoch(), 55));
        // the owner id (long, the same on most rows) is in the detail view, not a column of its own
        table.getColumns().add(DataView.dataCol(m.get("history.col.message"), r -> r.error(), 300));
        TableCells.fitToContent(table, MAX_COLUMN_WIDTH);
        table.setPlaceholder(new Label(m.get("history.empty")));
        table.setRowFactory(t -> {
            javafx.scene.control.TableRow<HistoryViewModel.Row> row = new javafx.scene.control.TableRow<>();
            row.setOnMouseClicked(e -> {
                if (e.getClickCount() == 2 && !row.isEmpty()) {
                    HistoryDetail.show(getScene().getWindow(), row.getItem(), vm.messages());
                }
            });
            return row;
        });
        table.setOnKeyPressed(e -> {
            HistoryViewModel.Row selected = table.getSelectionModel().getSelectedItem();
            if (e.getCode() == javafx.scene.input.KeyCode.ENTER && selected != null) {
                HistoryDetail.show(getScene().getWindow(), selected, vm.messages());
            }
        });
        Label hint = new Label(m.get("history.detail.hint"));
        hint.getStyleClass().add("hint");
        VBox.setVgrow(table, Priority.ALWAYS);
        getChildren().addAll(head, table, hint);
    }
}
