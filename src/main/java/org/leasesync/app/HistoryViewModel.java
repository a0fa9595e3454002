package org.leasesync.app;

import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.leasesync.registry.RunRecord;
import org.leasesync.registry.RunStore;
import org.leasesync.registry.Scope;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskSource;
import org.leasesync.sync.RecentSyncs;
import org.leasesync.sync.TriggerSkip;

/**
 * The history tab: a task key's runs, newest first — sources (first and merged), owner, epoch,
 * stages with times, result and error; enough to answer "why did it sync when I didn't click?" —
 * and the timer triggers that were skipped because the key had just synced (result "skipped",
 * listed just above the run that made them unnecessary: "why did it not sync?").
 */
public final class HistoryViewModel {

    /**
     * One run, or one skipped trigger (result "skipped", no stages or epoch, the reason in {@code error});
     * for a run, {@code error} is a failed run's reason or a succeeded run's note, with the recovery decision.
     */
    public record Row(String started, String sources, String result, String stages, String epoch, String owner,
                      String error) { }

    private final RunStore runs;
    private final RecentSyncs skips;
    private final MainViewModel main;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final ObjectProperty<Scope> scope = new SimpleObjectProperty<>(Scope.COURSE_SYNC);
    private final ObservableList<Row> rows = FXCollections.observableArrayList();

    public HistoryViewModel(RunStore runs, RecentSyncs skips, MainViewModel main, Executor background, Executor ui,
                            ZoneId zone) {
        this.runs = runs;
        this.skips = skips;
        this.main = main;
        this.background = background;
        this.ui = ui;
        this.texts = new StatusTexts(zone);
        scope.addListener((o, a, b) -> load());
        main.currentUserProperty().addListener((o, a, b) -> load());
    }

    public ObjectProperty<Scope> scopeProperty() {
        return scope;
    }

    public ObservableList<Row> rows() {
        return rows;
    }

    /** Reloads the last 100 runs of the signed-in user's key, with the triggers skipped after each. */
    public void load() {
        String user = main.currentUser();
        if (user == null) {
            return;
        }
        TaskKey key = new TaskKey(user, scope.get());
        background.execute(() -> {
            Map<String, List<TriggerSkip>> skipped = TriggerSkip.byRun(skips.skips(key, 1_000));
            List<Row> list = new ArrayList<>();
            for (RunRecord r : runs.history(key, 100)) {
                skipped.getOrDefault(r.runId(), List.of()).forEach(s -> list.add(row(s)));
                list.add(row(r));
            }
            ui.execute(() -> {
                if (user.equals(main.currentUser()) && key.scope() == scope.get()) {
                    rows.setAll(list);
                }
            });
        });
    }

    private Row row(TriggerSkip s) {
        return new Row(texts.time(s.at()), s.source().wireName(), "skipped", "", "", s.owner(), s.reason());
    }

    private Row row(RunRecord r) {
        String sources = r.firstSource().wireName() + (r.mergedSources().isEmpty() ? ""
                : " (joined by " + r.mergedSources().stream().map(TaskSource::wireName).collect(Collectors.joining(", ")) + ")");
        String stages = r.stages().stream().map(s -> s.stage() + " " + texts.time(s.at())).collect(Collectors.joining(" → "));
        String result = r.statusText() + r.endedAt().map(e -> " at " + texts.time(e)).orElse("");
        // A failed run's reason, or what a succeeded run has to say (e.g. it downloaded everything again).
        String error = r.error().orElse("") + r.recovery().map(x -> (r.error().isPresent() ? " · " : "") + "recovery: " + x).orElse("");
        return new Row(texts.time(r.startedAt()), sources, result, stages, Long.toString(r.epoch()), r.owner(), error);
    }
}
