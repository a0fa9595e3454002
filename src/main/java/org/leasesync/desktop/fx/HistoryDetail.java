package org.leasesync.desktop.fx;

import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.stage.Modality;
import javafx.stage.Window;
import org.leasesync.desktop.Messages;

/**
 * The detail view of one history row: every field on its own line, values wrapped (a run's merged
 * triggers counted per source, never one name per trigger), and a button that copies them all as
 * text. Non-modal: the history stays usable behind it. FX thread only.
 */
final class HistoryDetail {

    private HistoryDetail() {}

    /** Opens the details of {@code row} beside {@code owner} and returns the dialog (already showing). */
    static Dialog<ButtonType> show(Window owner, HistoryViewModel.Row row, Messages messages) {
        GridPane grid = new GridPane();
        grid.setId("history-detail-grid");
        grid.setHgap(14);
        grid.setVgap(6);
        ColumnConstraints names = new ColumnConstraints();
        names.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        ColumnConstraints values = new ColumnConstraints();
        values.setHgrow(Priority.ALWAYS);
        values.setFillWidth(true);
        grid.getColumnConstraints().addAll(names, values);
        int i = 0;
        for (HistoryViewModel.Field f : row.details()) {
            Label name = new Label(f.name());
            name.getStyleClass().add("detail-name");
            Label value = new Label(f.value());
            value.setId("history-detail-" + i);
            value.setWrapText(true);
            value.setMaxWidth(520);
            grid.addRow(i++, name, value);
        }
        grid.setPadding(new javafx.geometry.Insets(4, 8, 4, 8));
        ScrollPane scroll = RenderMemory.uncachedScrollPane(grid);
        scroll.setFitToWidth(true);
        scroll.setPrefViewportHeight(Math.min(460, 30 * row.details().size()));
        Dialog<ButtonType> dialog = new Dialog<>();
        dialog.initOwner(owner);
        dialog.initModality(Modality.NONE);
        dialog.setTitle(messages.get("history.detail.title"));
        dialog.setResizable(true);
        dialog.getDialogPane().setId("history-detail");
        dialog.getDialogPane().setContent(scroll);
        ButtonType close = new ButtonType(
                messages.get("history.detail.close"), javafx.scene.control.ButtonBar.ButtonData.CANCEL_CLOSE);
        ButtonType copy =
                new ButtonType(messages.get("history.detail.copy"), javafx.scene.control.ButtonBar.ButtonData.LEFT);
        dialog.getDialogPane().getButtonTypes().addAll(copy, close);
        javafx.scene.control.Button copyButton =
                (javafx.scene.control.Button) dialog.getDialogPane().lookupButton(copy);
        copyButton.setId("history-detail-copy");
        copyButton.addEventFilter(javafx.event.ActionEvent.ACTION, e -> {
            e.consume(); // copying does not close the dialog
            Clipboards.copy(asText(row));
        });
        dialog.show();
        return dialog;
    }

    /** "Name: value" lines, a value of several lines indented under its name. */
    static String asText(HistoryViewModel.Row row) {
        StringBuilder sb = new StringBuilder();
        for (HistoryViewModel.Field f : row.details()) {
            sb.append(f.name())
                    .append(": ")
                    .append(f.value().replace("\n", "\n    "))
                    .append('\n');
        }
        return sb.toString();
    }
}
