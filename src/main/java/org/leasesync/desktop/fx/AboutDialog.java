package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Window;
import org.leasesync.desktop.Messages;

/**
 * Help ▸ About: the version, the runtime, the data directory and the log folder, each folder with
 * Open (the desktop's file manager, or its path when there is none) and the whole as "Copy details"
 * for a bug report. Not modal: it can stay open beside the window. FX thread only.
 */
final class AboutDialog {

    private AboutDialog() {}

    /** Shows the dialog over {@code owner}; returns at once. */
    static void show(Window owner, AboutInfo info, FolderActions folders, Messages m) {
        Label name = new Label("leasesync " + info.version());
        name.setId("about-version");
        name.getStyleClass().add("section-title");
        Label pitch = new Label(m.get("about.pitch"));
        pitch.setWrapText(true);

        GridPane facts = new GridPane();
        facts.setHgap(8);
        facts.setVgap(6);
        facts.addRow(0, caption(m.get("about.runtime")), selectable("about-runtime", info.runtime()));
        facts.addRow(
                1,
                caption(m.get("about.dataDir")),
                selectable("about-data-dir", info.dataDir().toString()),
                openButton("about-open-data", m, folders::openData));
        facts.addRow(
                2,
                caption(m.get("about.logFolder")),
                selectable("about-log-folder", info.logFolder().toString()),
                openButton("about-open-logs", m, folders::openLogs));

        Button copy = new Button(m.get("about.copy"));
        copy.setId("about-copy");
        Label copied = new Label();
        copied.setId("about-copied");
        copy.setOnAction(e -> {
            Clipboards.copy(info.details(m));
            copied.setText(m.get("folder.copied"));
        });
        javafx.scene.layout.HBox copyRow = new javafx.scene.layout.HBox(8, copy, copied);
        copyRow.setAlignment(Pos.CENTER_LEFT);

        VBox content = new VBox(10, name, pitch, facts, copyRow);
        content.setPadding(new Insets(8, 12, 4, 12));
        // JavaFX's own "Close" follows the JVM's locale, not the window's language
        Alert alert = new Alert(
                Alert.AlertType.NONE, "", new ButtonType(m.get("dialog.close"), ButtonBar.ButtonData.CANCEL_CLOSE));
        alert.initOwner(owner);
        alert.initModality(Modality.NONE);
        alert.setTitle(m.get("about.title"));
        alert.setHeaderText(null);
        alert.getDialogPane().setId("about-dialog");
        alert.getDialogPane().setContent(content);
        alert.getDialogPane().setMinWidth(520);
        alert.setResizable(true);
        AppStyle.apply(alert.getDialogPane().getScene(), m.locale());
        alert.show();
    }

    private static Label caption(String text) {
        Label l = new Label(text);
        l.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE); // a caption is never cut to "…"
        return l;
    }

    private static TextField selectable(String id, String text) {
        // a read-only field rather than a label: the path can be selected and is never cut off unseen
        TextField f = new TextField(text);
        f.setId(id);
        f.setEditable(false);
        f.setPrefColumnCount(Math.min(48, Math.max(20, text.length())));
        GridPane.setHgrow(f, Priority.ALWAYS);
        return f;
    }

    private static Button openButton(String id, Messages m, Runnable open) {
        Button b = new Button(m.get("about.open"));
        b.setId(id);
        b.setOnAction(e -> open.run());
        b.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        return b;
    }
}
