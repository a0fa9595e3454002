package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.store.JdbcRunStore;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** History rows show merged triggers as counts; double-click or Enter opens every field of the run. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class HistoryDetailUiTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final ManualTime time = new ManualTime(Instant.parse("2026-11-30T10:00:00Z"));
    HistoryViewModel history;

    @Start
    void start(Stage stage) {
        OwnerId owner = new OwnerId("t", 4242, 1, "a");
        TaskRegistry reg =
                new TaskRegistry(store.leases(), owner, Duration.ofSeconds(60), time, OwnerLiveness.neverProvable());
        JdbcRunStore runs = new JdbcRunStore(store.database(), time)
                .withOrigin(new RunOrigin("leasesync window", "http://127.0.0.1:8787/"));
        HeldLease lease = reg.tryAcquire(KEY).orElseThrow();
        Instant t0 = time.now();
        runs.insertRun(
                lease.fence(), "run-7", TaskSource.MANUAL, org.leasesync.run.Stage.PULLING, t0, Optional.empty());
        for (int i = 0; i < 16; i++) {
            TaskSource s = i < 12 ? TaskSource.SCHEDULE : i < 15 ? TaskSource.FOREGROUND : TaskSource.MANUAL;
            runs.recordMergedTrigger("run-7", s, t0.plusMillis(i));
        }
        runs.enterStage(lease.fence(), "run-7", org.leasesync.run.Stage.PUSHING, t0.plusSeconds(2));
        runs.finishRun(lease.fence(), "run-7", RunStatus.FAILED, Optional.of("server said 500"), t0.plusSeconds(3));
        reg.release(lease);

        Coordinator c =
                new Coordinator(reg, runs, ctx -> RunOutcome.succeeded(), workers, new LeaseKeeper(reg), null, null);
        MainViewModel main = new MainViewModel(
                c,
                Runnable::run,
                Runnable::run,
                ZoneId.of("UTC"),
                List.of("alice"),
                sink -> new StatusTracker(store.runs(), c, Runnable::run, sink));
        main.start();
        history = new HistoryViewModel(
                store.runs(),
                new JdbcRecentSyncs(store.database()),
                main,
                Runnable::run,
                Platform::runLater,
                ZoneId.of("UTC"));
        stage.setScene(new Scene(new HistoryView(history), 900, 500));
        stage.show();
        history.load();
    }

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    @Test
    void theSourcesColumnCountsTriggersAndDoubleClickShowsEveryField(FxRobot robot) {
        waitUntil("row loaded", () -> history.rows().size() == 1);
        assertThat(history.rows().get(0).sources())
                .isEqualTo("manual (joined by schedule × 12, foreground × 3, manual × 1)");
        TableRow<?> row = robot.lookup("#history-table .table-row-cell").nth(0).queryAs(TableRow.class);
        robot.doubleClickOn(row);
        waitUntil(
                "detail open", () -> robot.lookup("#history-detail").tryQuery().isPresent());
        String all = details(robot);
        assertThat(all)
                .contains(
                        "Run id: run-7",
                        "Task key: alice|course_sync",
                        "Owner: " + new OwnerId("t", 4242, 1, "a").asString(),
                        "Epoch (fencing token): 1",
                        "Origin: leasesync window against http://127.0.0.1:8787/",
                        "Started by: manual",
                        "Joined by: 16 triggers: schedule × 12, foreground × 3, manual × 1",
                        "Started: 2026-11-30 10:00:00",
                        "Ended: 2026-11-30 10:00:03",
                        "Result: failed",
                        "Error: server said 500",
                        "Recovery decision: —");
        assertThat(all).contains("pushing  2026-11-30 10:00:02");
        assertThat(all).doesNotContain("schedule, schedule");
        robot.clickOn("#history-detail-copy");
        String[] clip = new String[1];
        robot.interact(() ->
                clip[0] = javafx.scene.input.Clipboard.getSystemClipboard().getString());
        assertThat(clip[0])
                .contains(
                        "Run id: run-7\n",
                        "Joined by: 16 triggers: schedule × 12, foreground × 3, manual × 1\n",
                        "Stages: pulling  2026-11-30 10:00:00\n    pushing  2026-11-30 10:00:02");
        assertThat(robot.lookup("#history-detail").tryQuery())
                .as("copying keeps the dialog open")
                .isPresent();
        closeDetails(robot);

        // Enter on the selected row opens the same view
        robot.interact(() -> robot.lookup("#history-table")
                .queryAs(TableView.class)
                .getSelectionModel()
                .select(0));
        robot.clickOn(row).type(KeyCode.ENTER);
        waitUntil(
                "detail open again",
                () -> robot.lookup("#history-detail").tryQuery().isPresent());
        assertThat(details(robot)).contains("Run id: run-7");
        closeDetails(robot);
    }

    @Test
    void columnsFitTheirContentNoneIsCutShortAndACutCellShowsItsWholeTextOnHovering(FxRobot robot) {
        waitUntil("row loaded", () -> history.rows().size() == 1);
        TableView<?> table = robot.lookup("#history-table").queryAs(TableView.class);
        HistoryViewModel.Row run = history.rows().get(0);
        assertThat(table.getColumns())
                .extracting(javafx.scene.control.TableColumn::getText)
                .as("the owner id is in the detail view only")
                .doesNotContain("Owner");
        for (javafx.scene.control.TableColumn<?, ?> c : table.getColumns()) {
            double needed =
                    TableCells.contentWidth((TableView) table, (javafx.scene.control.TableColumn) c, Double.MAX_VALUE);
            assertThat(c.getWidth())
                    .as("column %s", c.getText())
                    .isGreaterThanOrEqualTo(Math.min(needed, HistoryView.MAX_COLUMN_WIDTH) - 0.5)
                    .isLessThanOrEqualTo(HistoryView.MAX_COLUMN_WIDTH + 0.5);
        }
        // "succeeded at 6:…" and "Ep…" were cut: the result and epoch columns show their whole text
        javafx.scene.control.TableCell<?, ?> result = cell(robot, run.result());
        assertThat(result.getTooltip()).isNotNull();
        assertThat(result.getTooltip().getText()).isEqualTo(run.result());
        javafx.scene.control.TableCell<?, ?> sources = cell(robot, run.sources());
        assertThat(sources.getTooltip().getText())
                .isEqualTo("manual (joined by schedule × 12, foreground × 3, manual × 1)");
    }

    /**
     * The table's cell showing {@code text}, once a layout pulse has made it: the model holds the row
     * before the table has laid out its cells, and on a slow JVM the lookup can come in between.
     */
    private static javafx.scene.control.TableCell<?, ?> cell(FxRobot robot, String text) {
        waitUntil("a cell shows " + text, () -> findCell(robot, text).isPresent());
        return findCell(robot, text).orElseThrow(() -> new AssertionError("no cell " + text));
    }

    private static Optional<javafx.scene.control.TableCell<?, ?>> findCell(FxRobot robot, String text) {
        return robot.lookup("#history-table .table-cell").queryAllAs(javafx.scene.control.TableCell.class).stream()
                .filter(c -> text.equals(c.getText()))
                .<javafx.scene.control.TableCell<?, ?>>map(c -> c)
                .findFirst();
    }

    private static String details(FxRobot robot) {
        StringBuilder sb = new StringBuilder();
        List<Label> labels = robot.lookup("#history-detail-grid .label").queryAllAs(Label.class).stream()
                .toList();
        List<Label> sorted = labels.stream()
                .sorted(java.util.Comparator.comparing((Label l) -> javafx.scene.layout.GridPane.getRowIndex(l))
                        .thenComparing(l -> javafx.scene.layout.GridPane.getColumnIndex(l)))
                .toList();
        for (Label l : sorted) {
            sb.append(javafx.scene.layout.GridPane.getColumnIndex(l) == 0 ? "\n" + l.getText() + ": " : l.getText());
        }
        return sb.toString();
    }

    private static void closeDetails(FxRobot robot) {
        robot.interact(() -> Window.getWindows().stream()
                .filter(w -> w.getScene() != null && w.getScene().lookup("#history-detail") != null)
                .toList()
                .forEach(Window::hide));
        waitUntil(
                "detail closed",
                () -> robot.lookup("#history-detail").tryQuery().isEmpty());
    }
}
