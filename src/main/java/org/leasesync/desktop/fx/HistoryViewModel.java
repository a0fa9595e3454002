package org.leasesync.desktop.fx;

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
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunHistory;
import org.leasesync.run.RunRecord;
import org.leasesync.run.SourceCounts;
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
    public record Row(
            String started,
            String sources,
            String result,
            String stages,
            String epoch,
            String owner,
            String error,
            List<Field> details) {
        public Row {
            details = List.copyOf(details);
        }
    }

    /** One line of a row's detail view: a field's name and its value (may span lines). */
    public record Field(String name, String value) {}

    private final RunHistory runs;
    private final RecentSyncs skips;
    private final MainViewModel main;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final ObjectProperty<Scope> scope = new SimpleObjectProperty<>(Scope.COURSE_SYNC);
    private final ObservableList<Row> rows = FXCollections.observableArrayList();

    /** With the system's format locale for its texts. */
    public HistoryViewModel(
            RunHistory runs, RecentSyncs skips, MainViewModel main, Executor background, Executor ui, ZoneId zone) {
        this(runs, skips, main, background, ui, new StatusTexts(zone));
    }

    /** @param texts the window's language and time zone */
    public HistoryViewModel(
            RunHistory runs,
            RecentSyncs skips,
            MainViewModel main,
            Executor background,
            Executor ui,
            StatusTexts texts) {
        this.runs = runs;
        this.skips = skips;
        this.main = main;
        this.background = background;
        this.ui = ui;
        this.texts = java.util.Objects.requireNonNull(texts, "texts");
        scope.addListener((o, a, b) -> load());
        main.currentUserProperty().addListener((o, a, b) -> load());
    }

    public ObjectProperty<Scope> scopeProperty() {
        return scope;
    }

    /** The texts of the history's labels and detail view. */
    public Messages messages() {
        return texts.messages();
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
        Messages m = texts.messages();
        String skipped = m.get("history.result.skipped");
        List<Field> details = List.of(
                new Field(m.get("history.field.result"), skipped),
                new Field(m.get("history.field.key"), s.key().asString()),
                new Field(m.get("history.field.trigger"), texts.source(s.source())),
                new Field(m.get("history.field.at"), dateTime(s.at())),
                new Field(m.get("history.field.owner"), s.owner()),
                new Field(m.get("history.field.madeUnnecessaryBy"), s.recentRunId()),
                new Field(m.get("history.field.note"), s.reason()));
        return new Row(texts.time(s.at()), texts.source(s.source()), skipped, "", "", s.owner(), s.reason(), details);
    }

    private Row row(RunRecord r) {
        Messages m = texts.messages();
        SourceCounts merged = SourceCounts.of(r.mergedSources());
        String sources =
                texts.source(r.firstSource()) + (merged.isEmpty() ? "" : m.get("history.joinedBy", counts(merged)));
        String stages = r.stages().stream()
                .map(s -> stage(s.stage()) + " " + texts.time(s.at()))
                .collect(Collectors.joining(" → "));
        String status = status(r);
        String result = r.endedAt()
                .map(e -> m.get("history.result.at", status, texts.time(e)))
                .orElse(status);
        // A failed run's reason, or what a succeeded run has to say (e.g. it downloaded everything again).
        String error = r.error().orElse("")
                + r.recovery()
                        .map(x -> (r.error().isPresent() ? " · " : "") + m.get("history.recovery", x))
                        .orElse("");
        List<Field> details = new ArrayList<>();
        details.add(new Field(m.get("history.field.runId"), r.runId()));
        details.add(new Field(m.get("history.field.key"), r.key().asString()));
        details.add(new Field(m.get("history.field.owner"), r.owner()));
        details.add(new Field(m.get("history.field.epoch"), Long.toString(r.epoch())));
        details.add(new Field(
                m.get("history.field.origin"),
                r.origin()
                        .map(o -> m.get("history.origin", o.program(), o.server()))
                        .orElse(m.get("history.notRecorded"))));
        details.add(new Field(m.get("history.field.startedBy"), texts.source(r.firstSource())));
        details.add(new Field(
                m.get("history.field.joinedBy"),
                merged.isEmpty()
                        ? m.get("history.none")
                        : m.get("history.joinedCount", merged.total(), counts(merged))));
        details.add(new Field(m.get("history.field.started"), dateTime(r.startedAt())));
        details.add(new Field(
                m.get("history.field.ended"), r.endedAt().map(this::dateTime).orElse(m.get("history.stillRunning"))));
        details.add(new Field(
                m.get("history.field.stages"),
                r.stages().isEmpty()
                        ? m.get("history.none")
                        : r.stages().stream()
                                .map(s -> stage(s.stage()) + "  " + dateTime(s.at()))
                                .collect(Collectors.joining("\n"))));
        details.add(new Field(m.get("history.field.result"), status));
        boolean succeeded = r.status()
                .map(st -> st == org.leasesync.run.RunStatus.SUCCEEDED)
                .orElse(false);
        details.add(new Field(
                m.get(succeeded ? "history.field.note" : "history.field.error"),
                r.error().orElse(m.get("history.none"))));
        details.add(new Field(m.get("history.field.recovery"), r.recovery().orElse(m.get("history.none"))));
        return new Row(
                texts.time(r.startedAt()),
                sources,
                result,
                stages,
                Long.toString(r.epoch()),
                r.owner(),
                error,
                details);
    }

    /** "schedule × 12, foreground × 3" in the user's words. */
    private String counts(SourceCounts counts) {
        return counts.counts().entrySet().stream()
                .map(e -> m().get("history.sourceCount", texts.source(e.getKey()), e.getValue()))
                .collect(Collectors.joining(m().get("history.listSeparator")));
    }

    /** A stage's name in the user's words; a name this version does not know as it is. */
    private String stage(String wireName) {
        return m().has("stage." + wireName) ? m().get("stage." + wireName) : wireName;
    }

    /** The run's status in the user's words; a stored status this version cannot read as it is. */
    private String status(RunRecord r) {
        return r.status().map(st -> m().get("run.status." + st.wireName())).orElse(r.statusText());
    }

    private Messages m() {
        return texts.messages();
    }

    /** Date and time with seconds, in the user's zone: "2026-11-30 14:05:12". */
    private String dateTime(java.time.Instant t) {
        return DATE_TIME.withZone(texts.messages().zone()).format(t);
    }

    private static final java.time.format.DateTimeFormatter DATE_TIME =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", java.util.Locale.ROOT);
}
