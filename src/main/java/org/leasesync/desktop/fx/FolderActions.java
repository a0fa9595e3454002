package org.leasesync.desktop.fx;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javafx.geometry.Pos;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Window;
import org.leasesync.desktop.FolderOpener;
import org.leasesync.desktop.Messages;
import org.leasesync.files.OwnerOnlyFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "Open logs folder" and "Open data folder": the folder is created if missing and handed to the
 * desktop's file manager on the background executor (never the FX thread); when the desktop has no
 * program for folders, or it fails, a dialog shows the path with a Copy button instead — never a
 * silent failure.
 *
 * <p>Thread-safe: the opener runs on {@code background}, the dialog on {@code ui}.
 */
final class FolderActions {

    private static final Logger log = LoggerFactory.getLogger(FolderActions.class);

    /** The log folder inside a data directory (where {@code cli.LoggingSetup#addFileLog} writes). */
    static final String LOGS = "logs";

    private final Path dataDir;
    private final FolderOpener opener;
    private final Executor background;
    private final Executor ui;
    private final Messages messages;
    private final Supplier<Window> owner;

    FolderActions(
            Path dataDir,
            FolderOpener opener,
            Executor background,
            Executor ui,
            Messages messages,
            Supplier<Window> owner) {
        this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.background = Objects.requireNonNull(background, "background");
        this.ui = Objects.requireNonNull(ui, "ui");
        this.messages = Objects.requireNonNull(messages, "messages");
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    Path logsFolder() {
        return dataDir.resolve(LOGS);
    }

    Path dataFolder() {
        return dataDir;
    }

    void openLogs() {
        open(logsFolder());
    }

    void openData() {
        open(dataFolder());
    }

    private void open(Path folder) {
        background.execute(() -> {
            try {
                OwnerOnlyFiles.directory(folder);
                opener.open(folder);
                log.info("opened {} in the desktop's file manager", folder);
            } catch (IOException | UnsupportedOperationException | SecurityException | IllegalArgumentException e) {
                log.info("could not open {} ({}); showing its path", folder, e.getMessage());
                ui.execute(() -> showPath(folder));
            }
        });
    }

    /** The path with a Copy button, when no program could open the folder. FX thread. */
    private void showPath(Path folder) {
        TextField path = new TextField(folder.toAbsolutePath().toString());
        path.setId("folder-path");
        path.setEditable(false);
        path.setPrefColumnCount(40);
        HBox.setHgrow(path, Priority.ALWAYS);
        Button copy = new Button(messages.get("folder.copy"));
        copy.setId("folder-copy");
        Label copied = new Label();
        copied.setId("folder-copied");
        copy.setOnAction(e -> {
            Clipboards.copy(path.getText());
            copied.setText(messages.get("folder.copied"));
        });
        HBox row = new HBox(8, path, copy);
        row.setAlignment(Pos.CENTER_LEFT);
        Label why = new Label(messages.get("folder.noHandler"));
        why.setWrapText(true);
        copy.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        // JavaFX's own "Close" follows the JVM's locale, not the window's language
        Alert alert = new Alert(
                Alert.AlertType.INFORMATION,
                "",
                new ButtonType(messages.get("dialog.close"), javafx.scene.control.ButtonBar.ButtonData.CANCEL_CLOSE));
        alert.initOwner(owner.get());
        alert.initModality(Modality.NONE);
        alert.setTitle(messages.get("folder.title"));
        alert.setHeaderText(null);
        alert.getDialogPane().setId("folder-dialog");
        alert.getDialogPane().setContent(new VBox(8, why, row, copied));
        alert.setResizable(true);
        alert.show();
    }
}
