package org.leasesync.desktop.fx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.PrettyJson;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.json.JsonMappers;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.PayloadJson;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.SavedEdit;

/**
 * The data tab: the signed-in user's records of one scope, their local edits (the outbox, with the
 * pending count) and conflicts with both versions. Edits are local writes into the outbox; the next
 * sync pushes them. Reads and writes run on the background executor; lists change on the UI thread.
 */
public final class DataViewModel {

    static final ObjectMapper JSON = JsonMappers.CONTENT;

    /** A record row. */
    public record RecordRow(String id, long version, String content, String syncedAt, String localEdit) {

        /** The content on one line, for the table cell (line breaks become spaces). */
        public String oneLine() {
            return content.replaceAll("\\s*[\\r\\n]+\\s*", " ");
        }

        /** The content pretty-printed by Jackson (indented, one field a line); as is when it is not JSON. */
        public String pretty() {
            return PrettyJson.format(content);
        }
    }

    /**
     * An outbox row; {@code state} is the entry's state as stored ({@code pending}, {@code conflict},
     * {@code refused} or {@code unknown}) and {@code shownState} the same in the user's language;
     * {@code theirs} is the server's version for conflicts ("deleted on the server (v3)" when the
     * server deleted the record) and why the edit was set aside for rejected ones; {@code keepMineMeans}
     * says what Keep mine would do. Long contents are shortened for the table.
     */
    public record OutboxRow(
            String changeId,
            String recordId,
            String state,
            String shownState,
            String mine,
            String theirs,
            String madeAt,
            boolean serverLacksRecord,
            String keepMineMeans) {
        public boolean isConflict() {
            return "conflict".equals(state);
        }

        /** Set aside (refused by the server for good, or in an unknown state): Discard or Send again. */
        public boolean isSetAside() {
            return !isConflict() && !"pending".equals(state);
        }
    }

    /** Records read per page of the records table (never all records at once). */
    public static final int PAGE_SIZE = 200;

    /** The record the edit form was filled from, and the version shown then. */
    private record Editing(String id, long version) {}

    private final JdbcLocalEdits edits;
    private final MainViewModel main;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final Messages m;
    private final DataRowTexts rowTexts;
    private final ObjectProperty<Scope> scope = new SimpleObjectProperty<>(Scope.COURSE_SYNC);
    private final ObservableList<RecordRow> records = FXCollections.observableArrayList();
    private final ObservableList<OutboxRow> outbox = FXCollections.observableArrayList();
    private final ReadOnlyBooleanWrapper more = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private Editing editing;
    private final DataEditor editor = new DataEditor();
    private java.util.function.Consumer<TaskKey> afterEdit = key -> {};
    private java.util.function.ToIntFunction<TaskKey> copyCount = key -> 0;
    private java.util.function.BiConsumer<Scope, Optional<String>> opener = (s, c) -> {};

    /** With the system's format locale for its texts. */
    public DataViewModel(JdbcLocalEdits edits, MainViewModel main, Executor background, Executor ui, ZoneId zone) {
        this(edits, main, background, ui, new StatusTexts(zone));
    }

    /** @param texts the window's language and time zone */
    public DataViewModel(
            JdbcLocalEdits edits, MainViewModel main, Executor background, Executor ui, StatusTexts texts) {
        this.edits = Objects.requireNonNull(edits);
        this.main = main;
        this.background = background;
        this.ui = ui;
        this.texts = Objects.requireNonNull(texts, "texts");
        this.m = texts.messages();
        this.rowTexts = new DataRowTexts(m, texts);
        // another key's records: a message about the previous key's edit no longer applies
        scope.addListener((o, a, b) -> {
            message.set("");
            editor.clear();
            load();
        });
        main.currentUserProperty().addListener((o, a, b) -> {
            message.set("");
            editor.clear();
            load();
        });
    }

    /** The signed-in account whose records are shown (the main window's). */
    public ReadOnlyStringProperty currentUserProperty() {
        return main.currentUserProperty();
    }

    public ObjectProperty<Scope> scopeProperty() {
        return scope;
    }

    /** The edit form's texts, which follow the record once an edit saved from it has left the outbox. */
    DataEditor editor() {
        return editor;
    }

    /** The texts of the tab's labels, in the window's language. */
    public Messages messages() {
        return m;
    }

    public ObservableList<RecordRow> records() {
        return records;
    }

    public ObservableList<OutboxRow> outbox() {
        return outbox;
    }

    /** e.g. "5 records · 2 local edits waiting to be pushed · 1 conflict to resolve". */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** Reloads the lists for the signed-in user and scope. */
    public void load() {
        String user = main.currentUser();
        if (user == null) {
            return;
        }
        TaskKey key = new TaskKey(user, scope.get());
        background.execute(() -> {
            // A page and one more row (to know whether more follow), never all records and never a
            // count of them: COUNT(*) of 1,000,000 records takes seconds
            // (docs/benchmarks.md).
            var page = edits.recordsPage(key, Optional.empty(), PAGE_SIZE + 1);
            boolean hasMore = page.size() > PAGE_SIZE;
            var recs = hasMore ? page.subList(0, PAGE_SIZE) : page;
            var items = edits.outbox(key);
            Optional<DataEditor.Saved> look = editor.pendingLook(key);
            var current = look.flatMap(sv -> edits.record(key, sv.recordId()));
            var changeIds = items.stream()
                    .map(JdbcLocalEdits.OutboxItem::changeId)
                    .collect(java.util.stream.Collectors.toSet());
            List<RecordRow> rows = rowTexts.recordRows(recs, items);
            List<OutboxRow> out = items.stream().map(rowTexts::outboxRow).toList();
            long pending =
                    items.stream().filter(JdbcLocalEdits.OutboxItem::isPending).count();
            long conflicts =
                    items.stream().filter(JdbcLocalEdits.OutboxItem::isConflict).count();
            long setAside =
                    items.stream().filter(JdbcLocalEdits.OutboxItem::isSetAside).count();
            int kept = copyCount.applyAsInt(key);
            String text = rowTexts.summary(hasMore, recs.size(), pending, conflicts, setAside)
                    + (kept > 0 ? " · " + m.get("data.summary.copies", kept) : "");
            ui.execute(() -> {
                if (user.equals(main.currentUser()) && key.scope() == scope.get()) {
                    records.setAll(rows);
                    more.set(hasMore);
                    outbox.setAll(out);
                    summary.set(text);
                    look.ifPresent(sv -> editor.afterReload(sv, changeIds, current, message));
                }
            });
        });
    }

    /** Whether more records follow the rows shown ({@link #loadMore}). */
    public ReadOnlyBooleanProperty moreProperty() {
        return more.getReadOnlyProperty();
    }

    /**
     * Appends the next page of records after the last one shown (a page of {@value #PAGE_SIZE}, read
     * on the background executor). Does nothing when no more follow. UI thread.
     */
    public void loadMore() {
        String user = main.currentUser();
        if (user == null || !more.get() || records.isEmpty()) {
            return;
        }
        TaskKey key = new TaskKey(user, scope.get());
        String after = records.get(records.size() - 1).id();
        int shown = records.size();
        background.execute(() -> {
            var page = edits.recordsPage(key, Optional.of(after), PAGE_SIZE + 1);
            boolean hasMore = page.size() > PAGE_SIZE;
            var recs = hasMore ? page.subList(0, PAGE_SIZE) : page;
            var items = edits.outbox(key);
            List<RecordRow> rows = rowTexts.recordRows(recs, items);
            ui.execute(() -> {
                if (user.equals(main.currentUser())
                        && key.scope() == scope.get()
                        && records.size() == shown
                        && records.get(shown - 1).id().equals(after)) {
                    records.addAll(rows);
                    more.set(hasMore);
                }
            });
        });
    }

    /**
     * The user began editing {@code row} (selected it, which fills the edit form): its version is
     * the one the edit will be based on. UI thread.
     */
    public void startEditing(RecordRow row) {
        editing = row == null ? null : new Editing(row.id(), row.version());
    }

    /**
     * The version the user saw of {@code recordId}: the version shown when they began editing it,
     * else the version the records table shows now, else 0 (they saw no such record). UI thread.
     */
    OptionalLong seenVersion(String recordId) {
        if (editing != null && editing.id().equals(recordId)) {
            return OptionalLong.of(editing.version());
        }
        return OptionalLong.of(records.stream()
                .filter(r -> r.id().equals(recordId))
                .mapToLong(RecordRow::version)
                .findFirst()
                .orElse(0));
    }

    /**
     * Saves a local edit into the outbox after checking the JSON, based on the version the user saw
     * ({@link #seenVersion}); a bad payload gets a message and changes nothing. If the record changed
     * since the user saw it, the edit is saved as a conflict and the message says so. Call on the UI
     * thread; the write runs on the background executor.
     */
    public void saveEdit(String recordId, String payloadText) {
        String user = main.currentUser();
        Optional<String> checked = checkedJson(payloadText, m, message::set);
        if (checked.isEmpty()) {
            return;
        }
        String json = checked.get();
        if (recordId == null || recordId.isBlank()) {
            message.set(m.get("data.error.noId"));
            return;
        }
        String id = recordId.strip();
        OptionalLong seen = seenVersion(id);
        TaskKey key = new TaskKey(user, scope.get());
        background.execute(() -> {
            try {
                SavedEdit saved = edits.saveEdit(key, id, json, false, seen);
                String text = !saved.conflict()
                        ? m.get("data.saved")
                        : m.get(
                                "data.savedConflict",
                                id,
                                Long.toString(seen.getAsLong()),
                                saved.currentVersion() == 0
                                        ? m.get("data.savedConflict.gone")
                                        : saved.currentDeleted()
                                                ? m.get("data.savedConflict.deleted")
                                                : m.get(
                                                        "data.savedConflict.now",
                                                        Long.toString(saved.currentVersion())));
                ui.execute(() -> {
                    editor.saved(new DataEditor.Saved(key, id, saved.changeId(), json, text));
                    message.set(text);
                    afterEdit.accept(key);
                });
            } catch (IllegalArgumentException e) {
                ui.execute(() -> message.set(e.getMessage()));
            }
            load();
        });
    }

    /**
     * What happens after an edit was saved (called on the UI thread with its key): the conflict counts
     * are read again and a sync of the key follows shortly. Set once, before the tab is used.
     */
    public void setAfterEdit(java.util.function.Consumer<TaskKey> afterEdit) {
        this.afterEdit = Objects.requireNonNull(afterEdit);
    }

    /** How many conflict copies a key has, for the summary (read on the background executor). Set once. */
    public void setCopyCount(java.util.function.ToIntFunction<TaskKey> count) {
        this.copyCount = Objects.requireNonNull(count);
    }

    /** What Conflicts and copies opens: the conflict view of a scope, at a conflict's change id if one is selected. */
    public void setConflictOpener(java.util.function.BiConsumer<Scope, Optional<String>> opener) {
        this.opener = Objects.requireNonNull(opener);
    }

    /** "Conflicts and copies…": opens the conflict view at {@code selected} when it is a conflict. UI thread. */
    public void openConflicts(OutboxRow selected) {
        opener.accept(
                scope.get(),
                Optional.ofNullable(selected).filter(OutboxRow::isConflict).map(OutboxRow::changeId));
    }

    /**
     * {@code text} as compact JSON, if it is a JSON object within the record limits (checked as the
     * command line's edit and the push body check them); else empty, after {@code problem} got the
     * message saying why.
     */
    static Optional<String> checkedJson(String text, Messages m, java.util.function.Consumer<String> problem) {
        String json;
        try {
            JsonNode n = JSON.readTree(text == null ? "" : text);
            if (n == null || !n.isObject()) {
                problem.accept(m.get("data.error.notObject"));
                return Optional.empty();
            }
            json = n.toString();
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            problem.accept(m.get("data.error.limit", org.leasesync.protocol.RecordLimits.TOO_DEEP));
            return Optional.empty();
        } catch (JsonProcessingException e) {
            problem.accept(m.get("data.error.notJson", e.getOriginalMessage()));
            return Optional.empty();
        }
        Optional<String> limit = PayloadJson.problem(json);
        if (limit.isPresent()) {
            problem.accept(m.get("data.error.limit", limit.get()));
            return Optional.empty();
        }
        return Optional.of(json);
    }

    /**
     * Discards an edit the server refused for good (set aside): it is gone; the next sync brings the
     * server's version of the record.
     */
    public void discard(String changeId) {
        TaskKey key = new TaskKey(main.currentUser(), scope.get());
        background.execute(() -> {
            boolean ok = edits.discardSetAside(key, changeId);
            ui.execute(() -> message.set(m.get(ok ? "data.discarded" : "data.notSetAside")));
            load();
        });
    }

    /** Queues an edit that was set aside again (once its cause is gone); the next sync pushes it. */
    public void sendAgain(String changeId) {
        TaskKey key = new TaskKey(main.currentUser(), scope.get());
        background.execute(() -> {
            String text;
            try {
                text = m.get(edits.sendAgain(key, changeId) ? "data.queuedAgain" : "data.notSetAside");
            } catch (IllegalArgumentException e) {
                text = e.getMessage();
            }
            String shown = text;
            ui.execute(() -> message.set(shown));
            load();
        });
    }
}
