package org.leasesync.desktop.fx;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.leasesync.lease.TaskKey;
import org.leasesync.store.JdbcLocalEdits;

/**
 * The Data tab's edit form (record id and JSON) and what it shows once an edit saved from it has
 * left the outbox — pushed, discarded, or settled by taking the server's version: the form then
 * shows the record as it now is, and the "Saved locally" message, no longer true, is cleared. Text
 * the user has typed since the save is never replaced.
 *
 * <p>UI thread only, except {@link #pendingLook} (any thread).
 */
final class DataEditor {

    /** An edit saved from the form: its key, record, change id, compact JSON and the message shown. */
    record Saved(TaskKey key, String recordId, String changeId, String json, String message) {}

    private final StringProperty recordId = new SimpleStringProperty("");
    private final StringProperty payload = new SimpleStringProperty("");
    private volatile Saved saved;

    /** The record id field's text. */
    StringProperty recordIdProperty() {
        return recordId;
    }

    /** The JSON field's text. */
    StringProperty payloadProperty() {
        return payload;
    }

    /** Remembers an edit just saved from the form and the message that told the user so. UI thread. */
    void saved(Saved s) {
        this.saved = Objects.requireNonNull(s, "saved");
    }

    /** The saved edit a reload of {@code key} should look for, if any. Any thread. */
    Optional<Saved> pendingLook(TaskKey key) {
        Saved s = saved;
        return s != null && s.key().equals(key) ? Optional.of(s) : Optional.empty();
    }

    /**
     * After a reload of {@code s}'s key: when its change is no longer in the outbox ({@code outbox}
     * holds the change ids there now), clears {@code message} if it still says "saved", and puts
     * the record's current content into the form if the form still holds that edit. UI thread.
     *
     * @param current the record as stored now (empty: there is none, or it is deleted)
     * @param message the tab's message, cleared through this when it is the saved edit's
     */
    void afterReload(
            Saved s, Set<String> outbox, Optional<JdbcLocalEdits.LocalRecord> current, StringProperty message) {
        if (saved != s || outbox.contains(s.changeId())) {
            return; // a newer save since, or still waiting for its push
        }
        saved = null;
        if (message.get().equals(s.message())) {
            message.set("");
        }
        if (s.recordId().equals(recordId.get().strip()) && s.json().equals(compact(payload.get()))) {
            payload.set(current.filter(r -> !r.deleted())
                    .map(JdbcLocalEdits.LocalRecord::payloadJson)
                    .orElse(""));
        }
    }

    /** Clears the form (another key is shown). */
    void clear() {
        saved = null;
        recordId.set("");
        payload.set("");
    }

    private static String compact(String text) {
        try {
            return DataViewModel.JSON.readTree(text == null ? "" : text).toString();
        } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
            return "";
        }
    }
}
