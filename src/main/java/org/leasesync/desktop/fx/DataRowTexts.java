package org.leasesync.desktop.fx;

import java.util.List;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.store.JdbcLocalEdits;

/**
 * The data tab's rows and summary in the user's words: a record's cells, an outbox entry's state and
 * server side (shortened for the table), what Keep mine would do, the summary line. The
 * {@link DataViewModel} reads and writes the local database and keeps the lists; turning what it read
 * into texts is this class's job, and the conflict view shares part of it.
 *
 * <p>No mutable state; called on the background executor.
 */
final class DataRowTexts {

    /** Table cells show at most this many characters of a record's content. */
    static final int SHOWN_CHARS = 300;

    private final Messages m;
    private final StatusTexts texts;

    DataRowTexts(Messages m, StatusTexts texts) {
        this.m = m;
        this.texts = texts;
    }

    /** The outbox table's row of {@code i}. */
    DataViewModel.OutboxRow outboxRow(JdbcLocalEdits.OutboxItem i) {
        return new DataViewModel.OutboxRow(
                i.changeId(),
                i.recordId(),
                state(i),
                m.get("data.state." + state(i)),
                i.deleted() ? m.get("data.delete") : shorten(i.payloadJson()),
                i.isConflict()
                        ? shorten(serverSide(i))
                        : i.isSetAside()
                                ? m.get("data.setAside", i.rejectedReason().orElse(m.get("data.setAside.unknown")))
                                : "",
                texts.time(i.createdAt()),
                i.serverLacksRecord(),
                i.isConflict() ? keepMineMeans(i, m) : "");
    }

    List<DataViewModel.RecordRow> recordRows(
            List<JdbcLocalEdits.LocalRecord> recs, List<JdbcLocalEdits.OutboxItem> items) {
        return recs.stream()
                .map(r -> new DataViewModel.RecordRow(
                        r.id(),
                        r.version(),
                        r.deleted() ? m.get("data.deleted") : r.payloadJson(),
                        texts.time(r.serverTime()),
                        localEdit(items, r.id())))
                .toList();
    }

    /** "5 records · 2 local edits waiting to be pushed · 1 conflict to resolve · 1 edit refused by the server". */
    String summary(boolean hasMore, int shown, long pending, long conflicts, long setAside) {
        StringBuilder sb = new StringBuilder(
                hasMore
                        ? m.get("data.summary.moreThan", DataViewModel.PAGE_SIZE)
                        : m.get("data.summary.records", shown));
        sb.append(" · ").append(m.get("data.summary.pending", pending));
        if (conflicts > 0) {
            sb.append(" · ").append(m.get("data.summary.conflicts", conflicts));
        }
        if (setAside > 0) {
            sb.append(" · ").append(m.get("data.summary.refused", setAside));
        }
        return sb.toString();
    }

    /** The records table's "Local edit" cell: the state of the record's edits in the outbox, if any. */
    private String localEdit(List<JdbcLocalEdits.OutboxItem> items, String recordId) {
        List<JdbcLocalEdits.OutboxItem> mine =
                items.stream().filter(i -> i.recordId().equals(recordId)).toList();
        if (mine.isEmpty()) {
            return "";
        }
        if (mine.stream().anyMatch(JdbcLocalEdits.OutboxItem::isConflict)) {
            return m.get("data.state.conflict");
        }
        return m.get(
                mine.stream().anyMatch(JdbcLocalEdits.OutboxItem::isPending)
                        ? "data.state.pending"
                        : "data.state.refused");
    }

    /** {@code pending}, {@code conflict}, {@code refused} or {@code unknown}. */
    private static String state(JdbcLocalEdits.OutboxItem i) {
        if (i.isPending() || i.isConflict()) {
            return i.state();
        }
        return i.isRejected() ? "refused" : "unknown";
    }

    /**
     * The server's side of a conflict in the user's words (as {@link JdbcLocalEdits.OutboxItem#serverSide},
     * which the command line prints): "deleted on the server (v3)", "not on the server" or "v3 {...}".
     */
    private String serverSide(JdbcLocalEdits.OutboxItem i) {
        String version = Long.toString(i.serverVersion());
        if (i.serverDeleted()) {
            return m.get("data.server.deleted", version);
        }
        return i.serverVersion() == 0
                ? m.get("data.server.absent")
                : m.get("data.server.version", version, i.serverPayloadJson());
    }

    /** What keeping a conflict's edit does, in the user's words (as {@link JdbcLocalEdits.OutboxItem#keepMineMeans}). */
    static String keepMineMeans(JdbcLocalEdits.OutboxItem i, Messages m) {
        if (i.serverDeleted()) {
            return m.get("data.keepMeans.restores", i.recordId());
        }
        return i.serverVersion() == 0
                ? m.get("data.keepMeans.creates", i.recordId())
                : m.get("data.keepMeans.pushes", i.recordId(), Long.toString(i.serverVersion()));
    }

    String shorten(String text) {
        return text == null || text.length() <= SHOWN_CHARS
                ? text
                : m.get("data.shortened", text.substring(0, SHOWN_CHARS), text.length());
    }
}
