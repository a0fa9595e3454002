package org.leasesync.desktop.fx;

import java.util.Objects;
import javafx.collections.ListChangeListener;
import javafx.scene.control.OverrunStyle;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.text.Font;
import javafx.scene.text.Text;

/**
 * The tables' columns: each sized to its content (the widest of its header and its first rows'
 * cells, between a floor and a ceiling) whenever the rows change, and each cell cut at its end with an
 * ellipsis when it does not fit, with the whole text as a tooltip. Long texts (owner ids,
 * messages) belong in the detail view; a column only shows what fits. FX thread.
 */
final class TableCells {

    /** The narrowest a column gets, whatever its content. */
    static final double MIN_WIDTH = 48;
    /** Rows measured when sizing a column: enough for a screenful, bounded for a long history. */
    static final int MEASURED_ROWS = 200;
    /** Room for a cell's padding and a column's sort arrow. */
    private static final double PADDING = 28;

    private TableCells() {}

    /** A cell that shows its value's text, cut at the end when too long, with the whole text as a tooltip. */
    static <S, T> TableCell<S, T> withTooltip() {
        return new TableCell<>() {
            private final Tooltip tip = new Tooltip();

            {
                setTextOverrun(OverrunStyle.ELLIPSIS);
                tip.setWrapText(true);
                tip.setMaxWidth(560);
            }

            @Override
            protected void updateItem(T item, boolean empty) {
                super.updateItem(item, empty);
                String text = empty || item == null ? "" : item.toString();
                setText(text);
                tip.setText(text);
                setTooltip(text.isEmpty() ? null : tip);
            }
        };
    }

    /**
     * Sizes every column of {@code table} to its content now and whenever its rows change; a column
     * never gets wider than {@code maxWidth} (its cells' tooltips show the rest).
     */
    static <S> void fitToContent(TableView<S> table, double maxWidth) {
        Runnable fit = () -> {
            for (TableColumn<S, ?> c : table.getColumns()) {
                c.setPrefWidth(contentWidth(table, c, maxWidth));
            }
        };
        table.getItems().addListener((ListChangeListener<S>) change -> fit.run());
        fit.run();
    }

    /** The width {@code column}'s header and first rows need, between {@link #MIN_WIDTH} and {@code maxWidth}. */
    static <S> double contentWidth(TableView<S> table, TableColumn<S, ?> column, double maxWidth) {
        Text probe = new Text();
        Font font = Font.font(Font.getDefault().getFamily(), 14); // the window's text size (app.css .main)
        probe.setFont(font);
        probe.setText(Objects.toString(column.getText(), ""));
        double widest = probe.getLayoutBounds().getWidth();
        int rows = Math.min(MEASURED_ROWS, table.getItems().size());
        for (int i = 0; i < rows; i++) {
            Object value = column.getCellData(i);
            probe.setText(value == null ? "" : value.toString());
            widest = Math.max(widest, probe.getLayoutBounds().getWidth());
        }
        return Math.max(MIN_WIDTH, Math.min(maxWidth, Math.ceil(widest + PADDING)));
    }
}
