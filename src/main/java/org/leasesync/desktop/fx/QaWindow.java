package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.control.TableView;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.leasesync.desktop.Messages;

/**
 * The QA tools window: fire all triggers, the live lease table, the server's fault switches. An
 * ordinary window of its own — no owner and not always on top, so the main window can come in front
 * of it — that opens beside the main window and hides with it.
 */
final class QaWindow {

    private final Stage stage = new Stage();
    private final Window main;
    private boolean placed;

    QaWindow(QaViewModel vm, Window main) {
        this.main = main;
        Messages m = vm.messages();
        main.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, e -> stage.hide());
        stage.setTitle(m.get("qa.title"));
        Spinner<Integer> times = new Spinner<>(1, 1000, 50);
        times.setId("qa-times");
        times.setEditable(true);
        times.setPrefWidth(100);
        Button fire = new Button(m.get("qa.fire"));
        fire.setId("qa-fire");
        fire.getStyleClass().add("accent");
        fire.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        fire.setOnAction(e -> vm.fireAll(times.getValue()));
        Label fireResult = new Label();
        fireResult.setId("qa-fire-result");
        fireResult.textProperty().bind(vm.fireResultProperty());
        HBox fireRow = new HBox(8, new Label(m.get("qa.fire.what")), times, fire);
        fireRow.setAlignment(Pos.CENTER_LEFT);

        TableView<QaViewModel.LeaseRow> leases = new TableView<>(vm.leases());
        leases.setId("qa-leases");
        leases.getColumns().add(DataView.dataCol(m.get("qa.col.key"), r -> r.key(), 180));
        leases.getColumns().add(DataView.col(m.get("qa.col.state"), r -> r.state(), 70));
        leases.getColumns().add(DataView.dataCol(m.get("qa.col.owner"), r -> r.owner(), 340));
        leases.getColumns().add(DataView.col(m.get("qa.col.epoch"), r -> r.epoch(), 80));
        leases.getColumns().add(DataView.col(m.get("qa.col.expiresIn"), r -> r.expiresIn(), 100));
        leases.setPrefHeight(200);
        Label stats = new Label();
        stats.setId("qa-stats");
        stats.setWrapText(true);
        stats.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        stats.textProperty().bind(vm.serverStatsProperty());

        QaViewModel.FaultInputs f = vm.faultInputs();
        Spinner<Integer> latency = new Spinner<>(0, 60_000, f.latencyMs(), 100);
        Spinner<Integer> failPush = new Spinner<>(0, 100, f.failPush());
        Spinner<Integer> drop = new Spinner<>(0, 100, f.dropAfterApply());
        Spinner<Integer> delay = new Spinner<>(0, 120_000, f.delayAfterApplyMs(), 500);
        Spinner<Integer> throttle = new Spinner<>(0, 100, f.throttle());
        latency.setId("qa-latency");
        failPush.setId("qa-fail-push");
        drop.setId("qa-drop");
        delay.setId("qa-delay");
        throttle.setId("qa-throttle");
        for (Spinner<Integer> s : java.util.List.of(latency, failPush, drop, delay, throttle)) {
            s.setEditable(true);
            s.setPrefWidth(120);
        }
        GridPane grid = new GridPane();
        grid.setHgap(8);
        grid.setVgap(6);
        grid.addRow(0, new Label(m.get("qa.fault.latency")), latency);
        grid.addRow(1, new Label(m.get("qa.fault.failPush")), failPush);
        grid.addRow(2, new Label(m.get("qa.fault.drop")), drop);
        grid.addRow(3, new Label(m.get("qa.fault.delay")), delay);
        grid.addRow(4, new Label(m.get("qa.fault.throttle")), throttle);
        Button apply = new Button(m.get("qa.apply"));
        apply.setId("qa-apply-faults");
        apply.setDisable(!vm.hasEmbeddedServer());
        apply.setOnAction(e -> vm.applyFaults(
                latency.getValue(), failPush.getValue(), drop.getValue(), delay.getValue(), throttle.getValue()));
        Label faultMsg = new Label();
        faultMsg.setId("qa-fault-message");
        faultMsg.setWrapText(true);
        faultMsg.textProperty().bind(vm.faultMessageProperty());
        Button refresh = new Button(m.get("qa.refresh"));
        refresh.setId("qa-refresh");
        refresh.setOnAction(e -> vm.refresh());

        VBox root = new VBox(
                10,
                title(m.get("qa.section.triggers")),
                fireRow,
                fireResult,
                title(m.get("qa.section.leases")),
                leases,
                stats,
                refresh,
                title(m.get("qa.section.faults")),
                grid,
                apply,
                faultMsg);
        root.setPadding(new Insets(14));
        Scene scene = new Scene(root, 880, 760);
        AppStyle.apply(scene, m.locale());
        root.getStyleClass().add("main");
        stage.setScene(scene);
        javafx.animation.Timeline tick = new javafx.animation.Timeline(
                new javafx.animation.KeyFrame(javafx.util.Duration.seconds(1), e -> vm.refresh()));
        tick.setCycleCount(javafx.animation.Animation.INDEFINITE);
        stage.setOnShown(e -> tick.play());
        stage.setOnHidden(e -> tick.stop());
    }

    private static Label title(String text) {
        Label l = new Label(text);
        l.getStyleClass().add("section-title");
        return l;
    }

    void show() {
        if (!placed) {
            WindowPlacement.beside(main, stage);
            placed = true;
        }
        stage.show();
        stage.toFront();
    }

    Stage stage() {
        return stage;
    }
}
