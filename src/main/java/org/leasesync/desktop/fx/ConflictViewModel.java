package org.leasesync.desktop.fx;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.leasesync.client.ConflictDiff;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.store.ConflictCopies;
import org.leasesync.store.JdbcLocalEdits;

/**
 * The conflict view of one key: its conflicts, the selected one's two versions in full, one field a
 * line with the fields that differ marked ({@link ConflictDiff}), who made each and when, and the
 * three ways out — Keep mine, Take server's (asked to confirm: it drops the edit) and Edit and keep.
 * The side not kept becomes a conflict copy ({@link ConflictCopies}), listed here with Restore and
 * Delete. Reads and writes run on the background executor; the lists and properties change on the
 * UI thread only.
 */
public final class ConflictViewModel {

    /** One line of a version; {@code differs}: its field differs from the other version's. */
    public record Line(String text, boolean differs) {}

    /**
     * A conflict as the view shows it. Immutable.
     *
     * @param label the list's line (the record id)
     * @param mineCaption who made this device's version and when
     * @param serverCaption the server's version, and when it was made when known
     * @param differs what differs, in words
     * @param editText this device's content pretty-printed, to start Edit and keep from
     */
    public record ConflictRow(
            String changeId,
            String recordId,
            String label,
            String mineCaption,
            List<Line> mine,
            String serverCaption,
            List<Line> server,
            String differs,
            String editText,
            String keepMineLabel,
            String keepMineMeans) {
        public ConflictRow {
            mine = List.copyOf(mine);
            server = List.copyOf(server);
        }
    }

    /** A conflict copy as listed. */
    public record CopyRow(long id, String label) {}

    private final JdbcLocalEdits edits;
    private final ConflictCopies copies;
    private final MainViewModel main;
    private final Executor background;
    private final Executor ui;
    private final StatusTexts texts;
    private final Messages m;
    private final Runnable changed;
    private final ObservableList<ConflictRow> conflicts = FXCollections.observableArrayList();
    private final ObservableList<CopyRow> copyRows = FXCollections.observableArrayList();
    private final ReadOnlyObjectWrapper<ConflictRow> selected = new ReadOnlyObjectWrapper<>();
    private final ObservableList<Line> mineLines = FXCollections.observableArrayList();
    private final ObservableList<Line> serverLines = FXCollections.observableArrayList();
    private final StringProperty editText = new SimpleStringProperty("");
    private final ReadOnlyBooleanWrapper confirming = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("");
    private Scope scope = Scope.COURSE_SYNC;

    /**
     * @param changed called on the UI thread after a conflict was resolved or a copy restored (the
     *     cards' counts and the Data tab reload)
     */
    public ConflictViewModel(
            JdbcLocalEdits edits,
            ConflictCopies copies,
            MainViewModel main,
            Executor background,
            Executor ui,
            StatusTexts texts,
            Runnable changed) {
        this.edits = Objects.requireNonNull(edits);
        this.copies = Objects.requireNonNull(copies);
        this.main = Objects.requireNonNull(main);
        this.background = Objects.requireNonNull(background);
        this.ui = Objects.requireNonNull(ui);
        this.texts = Objects.requireNonNull(texts);
        this.m = texts.messages();
        this.changed = Objects.requireNonNull(changed);
    }

    public Messages messages() {
        return m;
    }

    /** The signed-in user's conflicts of the scope shown, oldest first. */
    public ObservableList<ConflictRow> conflicts() {
        return conflicts;
    }

    /** The scope's conflict copies, oldest first. */
    public ObservableList<CopyRow> copies() {
        return copyRows;
    }

    /** The conflict whose versions are shown; null when there is none. */
    public ReadOnlyObjectProperty<ConflictRow> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    /** This device's version of the selected conflict, in full, one field a line. */
    public ObservableList<Line> mineLines() {
        return mineLines;
    }

    /** The server's version of the selected conflict, in full, one field a line. */
    public ObservableList<Line> serverLines() {
        return serverLines;
    }

    /** The content Edit and keep saves; starts as this device's version. */
    public StringProperty editTextProperty() {
        return editText;
    }

    /** Whether Take server's waits for the user's confirmation. */
    public ReadOnlyBooleanProperty confirmingProperty() {
        return confirming.getReadOnlyProperty();
    }

    /** The confirmation's question for the selected conflict. */
    public String confirmText() {
        ConflictRow r = selected.get();
        return r == null ? "" : m.get("conflict.confirm.takeTheirs", r.recordId());
    }

    /** What the last action did, or why it could not. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** The window's title: "Conflicts — Courses". */
    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /**
     * Shows {@code scope}'s conflicts of the signed-in user, selecting {@code changeId}'s when given
     * (else the first). UI thread.
     */
    public void open(Scope scope, Optional<String> changeId) {
        this.scope = Objects.requireNonNull(scope);
        title.set(m.get("conflict.title", StatusTexts.title(scope, m)));
        message.set("");
        load(changeId);
    }

    /** Shows {@code row}'s two versions. UI thread. */
    public void select(ConflictRow row) {
        confirming.set(false);
        selected.set(row);
        mineLines.setAll(row == null ? List.of() : row.mine());
        serverLines.setAll(row == null ? List.of() : row.server());
        editText.set(row == null ? "" : row.editText());
    }

    /** Keep mine: the edit is pushed over the server's version, which becomes a copy. UI thread. */
    public void keepMine() {
        resolve(ConflictCopies.Choice.KEEP_MINE, Optional.empty());
    }

    /** Take server's: asks to confirm first (the edit leaves the outbox). UI thread. */
    public void askTakeTheirs() {
        if (selected.get() != null) {
            confirming.set(true);
        }
    }

    /** The confirmation's "Drop my edit": takes the server's version; the edit becomes a copy. UI thread. */
    public void confirmTakeTheirs() {
        if (confirming.get()) {
            confirming.set(false);
            resolve(ConflictCopies.Choice.TAKE_SERVERS, Optional.empty());
        }
    }

    /** The confirmation's "Cancel": nothing changes. UI thread. */
    public void cancelTakeTheirs() {
        confirming.set(false);
    }

    /**
     * Edit and keep: the edited content ({@link #editTextProperty}) is pushed over the server's
     * version, which becomes a copy. Content that is not a JSON object, or breaks the record limits,
     * gets a message and changes nothing. UI thread.
     */
    public void editAndKeep() {
        Optional<String> json = DataViewModel.checkedJson(editText.get(), m, message::set);
        json.ifPresent(j -> resolve(ConflictCopies.Choice.EDIT_AND_KEEP, Optional.of(j)));
    }

    /** Restores a copy as a new edit of its record (pushed by the next sync). UI thread. */
    public void restore(CopyRow copy) {
        TaskKey key = key();
        background.execute(() -> {
            String text;
            try {
                text = copies.restore(key, copy.id())
                        .map(r -> m.get(
                                r.edit().conflict() ? "conflict.copy.restoredConflict" : "conflict.copy.restored",
                                Long.toString(copy.id()),
                                r.copy().recordId()))
                        .orElse(m.get("conflict.copy.gone"));
            } catch (IllegalArgumentException e) {
                text = e.getMessage();
            }
            done(key, text, Optional.empty());
        });
    }

    /** Deletes a copy for good. UI thread. */
    public void delete(CopyRow copy) {
        TaskKey key = key();
        background.execute(() -> done(
                key,
                m.get(
                        copies.delete(key, copy.id()) ? "conflict.copy.deleted" : "conflict.copy.gone",
                        Long.toString(copy.id())),
                Optional.empty()));
    }

    private void resolve(ConflictCopies.Choice choice, Optional<String> content) {
        ConflictRow row = selected.get();
        if (row == null) {
            return;
        }
        TaskKey key = key();
        background.execute(() -> {
            String text;
            try {
                text = copies.resolve(key, row.changeId(), choice, content)
                        .map(r -> switch (choice) {
                            case KEEP_MINE ->
                                m.get(
                                        "conflict.kept",
                                        row.keepMineMeans(),
                                        Long.toString(r.copy().id()));
                            case EDIT_AND_KEEP ->
                                m.get(
                                        "conflict.keptEdited",
                                        row.keepMineMeans(),
                                        Long.toString(r.copy().id()));
                            case TAKE_SERVERS ->
                                m.get(
                                        "conflict.tookTheirs",
                                        row.recordId(),
                                        Long.toString(r.copy().id()));
                        })
                        .orElse(m.get("conflict.gone"));
            } catch (IllegalArgumentException e) {
                text = e.getMessage();
            }
            done(key, text, Optional.empty());
        });
    }

    /** Shows {@code text}, reloads and tells the window. Background thread. */
    private void done(TaskKey key, String text, Optional<String> select) {
        ui.execute(() -> {
            message.set(text);
            changed.run();
        });
        load(key, select);
    }

    private TaskKey key() {
        return new TaskKey(main.currentUser(), scope);
    }

    private void load(Optional<String> select) {
        if (main.currentUser() != null) {
            TaskKey key = key();
            background.execute(() -> load(key, select));
        }
    }

    /** Reads the key's conflicts and copies and shows them. Background thread. */
    private void load(TaskKey key, Optional<String> select) {
        List<ConflictRow> rows = new ArrayList<>();
        for (JdbcLocalEdits.OutboxItem i : edits.outbox(key)) {
            if (i.isConflict()) {
                rows.add(row(key, i));
            }
        }
        List<CopyRow> copyList = copies.list(key).stream().map(this::copyRow).toList();
        ui.execute(() -> {
            if (!key.equals(new TaskKey(main.currentUser(), scope))) {
                return;
            }
            String keep =
                    select.orElse(selected.get() == null ? null : selected.get().changeId());
            conflicts.setAll(rows);
            copyRows.setAll(copyList);
            select(rows.stream()
                    .filter(r -> r.changeId().equals(keep))
                    .findFirst()
                    .orElse(rows.isEmpty() ? null : rows.get(0)));
        });
    }

    private ConflictRow row(TaskKey key, JdbcLocalEdits.OutboxItem i) {
        boolean serverHas = !i.serverLacksRecord();
        List<ConflictDiff.Difference> diff =
                ConflictDiff.between(i.payloadJson(), !i.deleted(), i.serverPayloadJson(), serverHas);
        Set<String> fields = ConflictDiff.fields(diff);
        String mineCaption = m.get("conflict.mine.who", texts.time(i.createdAt()), Long.toString(i.baseVersion()));
        List<Line> mine =
                i.deleted() ? List.of(new Line(m.get("conflict.mine.deletes"), true)) : lines(i.payloadJson(), fields);
        String version = Long.toString(i.serverVersion());
        String serverCaption = i.serverDeleted()
                ? m.get("conflict.server.deleted", version)
                : i.serverVersion() == 0
                        ? m.get("conflict.server.absent")
                        : copies.serverVersionTime(key, i)
                                .map(t -> m.get("conflict.server.who", version, texts.time(t)))
                                .orElse(m.get("conflict.server.whoNoTime", version));
        List<Line> server = serverHas ? lines(i.serverPayloadJson(), fields) : List.of(new Line(serverCaption, true));
        String differs = diff.isEmpty()
                ? m.get("conflict.differs.none")
                : m.get(
                        "conflict.differs",
                        String.join(", ", diff.stream().map(this::difference).toList()));
        String keepLabel = m.get(i.serverLacksRecord() ? "conflict.keepMine.restores" : "conflict.keepMine");
        return new ConflictRow(
                i.changeId(),
                i.recordId(),
                i.recordId(),
                mineCaption,
                mine,
                serverCaption,
                server,
                differs,
                i.deleted() ? "{}" : ConflictDiff.pretty(i.payloadJson()),
                keepLabel,
                DataRowTexts.keepMineMeans(i, m));
    }

    private String difference(ConflictDiff.Difference d) {
        return switch (d.change()) {
            case CHANGED -> m.get("conflict.change.changed", d.path());
            case ONLY_MINE -> m.get("conflict.change.onlyMine", d.path());
            case ONLY_SERVER -> m.get("conflict.change.onlyServer", d.path());
            case WHOLE_RECORD -> m.get("conflict.change.whole");
        };
    }

    private CopyRow copyRow(ConflictCopies.Copy c) {
        String at = texts.time(c.resolvedAt());
        return new CopyRow(
                c.id(),
                c.side() == ConflictCopies.Side.MINE
                        ? m.get(
                                "conflict.copy.mine",
                                Long.toString(c.id()),
                                c.recordId(),
                                Long.toString(c.version()),
                                at)
                        : m.get(
                                "conflict.copy.server",
                                Long.toString(c.id()),
                                c.recordId(),
                                Long.toString(c.version()),
                                at));
    }

    private static List<Line> lines(String json, Set<String> fields) {
        return ConflictDiff.lines(json, fields).stream()
                .map(l -> new Line(l.text(), l.differs()))
                .toList();
    }
}
