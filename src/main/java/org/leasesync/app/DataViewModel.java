package org.leasesync.app;

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
import org.leasesync.registry.Scope;
import org.leasesync.registry.TaskKey;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.SavedEdit;

/**
 * The data tab: the signed-in user's records of one scope, their local edits (the outbox, with the
 * pending count) and conflicts with both versions. Edits are local writes into the outbox; the next
 * sync pushes them. Reads and writes run on the background executor; lists change on the UI thread.
 */
public final class DataViewModel {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

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
     * An outbox row; {@code theirs} is the server's version for conflicts ("deleted on the server
     * (v3)" when the server deleted the record) and why the edit was set aside for rejected ones;
     * {@code keepMineMeans} says what Keep mine would do. Long contents are shortened for the table.
     */
    public record OutboxRow(String changeId, String recordId, String state, String mine, String theirs, String madeAt,
                            boolean serverLacksRecord, String keepMineMeans) {
        public boolean isConflict() {
            return "conflict".equals(state);
        }

        /** Set aside (refused by the server for good, or in an unknown state): Discard or Send again. */
        public boolean isSetAside() {
            return !isConflict() && !"pending".equals(state);
        }
    }

    /** Table cells show at most this many characters of a record's content. */
    static final int SHOWN_CHARS = 300;

    /** Records read per page of the records table (issue 14 §6: never all records at once). */
    public static final int PAGE_SIZE = 200;

    /** The record the edit form was filled from, and the version shown then. */
    private record Editing(String id, long version) { }

    private final JdbcLocalEdits edits;
    private final MainViewModel main;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final ObjectProperty<Scope> scope = new SimpleObjectProperty<>(Scope.COURSE_SYNC);
    private final ObservableList<RecordRow> records = FXCollections.observableArrayList();
    private final ObservableList<OutboxRow> outbox = FXCollections.observableArrayList();
    private final ReadOnlyBooleanWrapper more = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private Editing editing;

    public DataViewModel(JdbcLocalEdits edits, MainViewModel main, Executor background, Executor ui, ZoneId zone) {
        this.edits = Objects.requireNonNull(edits);
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

    public ObservableList<RecordRow> records() {
        return records;
    }

    public ObservableList<OutboxRow> outbox() {
        return outbox;
    }

    /** e.g. "5 records · 2 local edits waiting to be pushed · 1 conflict". */
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
            // count of them: COUNT(*) of 1,000,000 records took 3 s (docs/benchmarks.md, issue 14).
            var page = edits.recordsPage(key, Optional.empty(), PAGE_SIZE + 1);
            boolean hasMore = page.size() > PAGE_SIZE;
            var recs = hasMore ? page.subList(0, PAGE_SIZE) : page;
            var items = edits.outbox(key);
            List<RecordRow> rows = recs.stream().map(r -> new RecordRow(r.id(), r.version(),
                    r.deleted() ? "(deleted)" : r.payloadJson(), texts.time(r.serverTime()), localEdit(items, r.id())))
                    .toList();
            List<OutboxRow> out = items.stream().map(i -> new OutboxRow(i.changeId(), i.recordId(), shownState(i),
                    i.deleted() ? "(delete)" : shorten(i.payloadJson()),
                    i.isConflict() ? shorten(i.serverSide())
                            : i.isSetAside() ? "Set aside: " + i.rejectedReason().orElse("its state is unknown") : "",
                    texts.time(i.createdAt()), i.serverLacksRecord(), i.isConflict() ? i.keepMineMeans() : ""))
                    .toList();
            long pending = items.stream().filter(JdbcLocalEdits.OutboxItem::isPending).count();
            long conflicts = items.stream().filter(JdbcLocalEdits.OutboxItem::isConflict).count();
            long setAside = items.stream().filter(JdbcLocalEdits.OutboxItem::isSetAside).count();
            String text = (hasMore ? "more than " + PAGE_SIZE + " records" : recs.size() + " record"
                    + (recs.size() == 1 ? "" : "s")) + " · " + pending + " local edit"
                    + (pending == 1 ? "" : "s") + " waiting to be pushed" + (conflicts > 0 ? " · " + conflicts + " conflict"
                    + (conflicts == 1 ? "" : "s") + " to resolve" : "") + (setAside > 0 ? " · " + setAside + " edit"
                    + (setAside == 1 ? "" : "s") + " refused by the server" : "");
            ui.execute(() -> {
                if (user.equals(main.currentUser()) && key.scope() == scope.get()) {
                    records.setAll(rows);
                    more.set(hasMore);
                    outbox.setAll(out);
                    summary.set(text);
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
            List<RecordRow> rows = recs.stream().map(r -> new RecordRow(r.id(), r.version(),
                    r.deleted() ? "(deleted)" : r.payloadJson(), texts.time(r.serverTime()), localEdit(items, r.id())))
                    .toList();
            ui.execute(() -> {
                if (user.equals(main.currentUser()) && key.scope() == scope.get() && records.size() == shown
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
        return OptionalLong.of(records.stream().filter(r -> r.id().equals(recordId)).mapToLong(RecordRow::version)
                .findFirst().orElse(0));
    }

    /**
     * Saves a local edit into the outbox after checking the JSON, based on the version the user saw
     * ({@link #seenVersion}); a bad payload gets a message and changes nothing. If the record changed
     * since the user saw it, the edit is saved as a conflict and the message says so. Call on the UI
     * thread; the write runs on the background executor.
     */
    public void saveEdit(String recordId, String payloadText) {
        String user = main.currentUser();
        String json;
        try {
            JsonNode n = JSON.readTree(payloadText == null ? "" : payloadText);
            if (n == null || !n.isObject()) {
                message.set("The content must be a JSON object, like {\"title\": \"Algebra\"}.");
                return;
            }
            json = n.toString();
        } catch (JsonProcessingException e) {
            message.set("The content is not valid JSON: " + e.getOriginalMessage());
            return;
        }
        if (recordId == null || recordId.isBlank()) {
            message.set("Give the record an id.");
            return;
        }
        String id = recordId.strip();
        OptionalLong seen = seenVersion(id);
        TaskKey key = new TaskKey(user, scope.get());
        background.execute(() -> {
            try {
                SavedEdit saved = edits.saveEdit(key, id, json, false, seen);
                String text = !saved.conflict() ? "Saved locally. The next sync pushes it."
                        : "Saved as a conflict: " + id + " changed since you saw version " + seen.getAsLong()
                        + (saved.currentVersion() == 0 ? " (it is no longer on the server)"
                        : saved.currentDeleted() ? " (it was deleted on the server)"
                        : " (now version " + saved.currentVersion() + ")") + ". Keep mine or take the server's below.";
                ui.execute(() -> message.set(text));
            } catch (IllegalArgumentException e) {
                ui.execute(() -> message.set(e.getMessage()));
            }
            load();
        });
    }

    /**
     * Discards an edit the server refused for good (set aside): it is gone; the next sync brings the
     * server's version of the record.
     */
    public void discard(String changeId) {
        TaskKey key = new TaskKey(main.currentUser(), scope.get());
        background.execute(() -> {
            boolean ok = edits.discardSetAside(key, changeId);
            ui.execute(() -> message.set(ok ? "Discarded the refused edit." : "That edit is no longer set aside."));
            load();
        });
    }

    /** Queues an edit that was set aside again (once its cause is gone); the next sync pushes it. */
    public void sendAgain(String changeId) {
        TaskKey key = new TaskKey(main.currentUser(), scope.get());
        background.execute(() -> {
            String text;
            try {
                text = edits.sendAgain(key, changeId) ? "Queued again; the next sync pushes it."
                        : "That edit is no longer set aside.";
            } catch (IllegalArgumentException e) {
                text = e.getMessage();
            }
            String shown = text;
            ui.execute(() -> message.set(shown));
            load();
        });
    }

    private static String localEdit(List<JdbcLocalEdits.OutboxItem> items, String recordId) {
        List<JdbcLocalEdits.OutboxItem> mine = items.stream().filter(i -> i.recordId().equals(recordId)).toList();
        if (mine.isEmpty()) {
            return "";
        }
        if (mine.stream().anyMatch(JdbcLocalEdits.OutboxItem::isConflict)) {
            return "conflict";
        }
        return mine.stream().anyMatch(JdbcLocalEdits.OutboxItem::isPending) ? "pending" : "refused";
    }

    private static String shownState(JdbcLocalEdits.OutboxItem i) {
        if (i.isPending() || i.isConflict()) {
            return i.state();
        }
        return i.isRejected() ? "refused" : "unknown";
    }

    static String shorten(String text) {
        return text == null || text.length() <= SHOWN_CHARS ? text
                : text.substring(0, SHOWN_CHARS) + "… (" + text.length() + " characters)";
    }


    /** The Keep mine button's text for the selected row: it says when keeping restores the record. */
    public static String keepMineLabel(OutboxRow selected) {
        return selected != null && selected.serverLacksRecord() ? "Keep mine (restores it)" : "Keep mine";
    }

    /**
     * Keeps the local edit of a conflict (it is rebased on the server's version and pushed again);
     * the message says what that does, e.g. that it restores a record deleted on the server.
     */
    public void keepMine(String changeId) {
        TaskKey key = new TaskKey(main.currentUser(), scope.get());
        background.execute(() -> {
            Optional<JdbcLocalEdits.OutboxItem> conflict = edits.entry(key, changeId)
                    .filter(JdbcLocalEdits.OutboxItem::isConflict);
            boolean ok = conflict.isPresent() && edits.keepMine(key, changeId);
            String text = ok ? "Kept your version: " + conflict.get().keepMineMeans() + "." : "That conflict is gone.";
            ui.execute(() -> message.set(text));
            load();
        });
    }

    /** Takes the server's version of a conflict (the local edit is discarded). */
    public void takeTheirs(String changeId) {
        TaskKey key = new TaskKey(main.currentUser(), scope.get());
        background.execute(() -> {
            boolean ok = edits.takeTheirs(key, changeId);
            ui.execute(() -> message.set(ok ? "Took the server's version." : "That conflict is gone."));
            load();
        });
    }
}
