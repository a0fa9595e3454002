package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.leasesync.client.ConflictDiff;
import org.leasesync.lease.TaskKey;
import org.leasesync.store.ConflictCopies;
import org.leasesync.store.JdbcLocalEdits;

/**
 * A conflict and the conflict copies as the command line prints them: both versions in full, one
 * field a line, the lines of fields that differ marked with {@code !}, who made each version and
 * when (as far as the local data knows), and the commands that resolve, restore or delete.
 * Stateless.
 */
final class ConflictText {

    private ConflictText() {}

    /** The differences of a conflict (this device's edit against the server's version). */
    static List<ConflictDiff.Difference> differences(JdbcLocalEdits.OutboxItem i) {
        return ConflictDiff.between(i.payloadJson(), !i.deleted(), i.serverPayloadJson(), !i.serverLacksRecord());
    }

    /** Prints one conflict in full. */
    static void print(PrintWriter out, TaskKey key, JdbcLocalEdits.OutboxItem i) {
        List<ConflictDiff.Difference> diff = differences(i);
        Set<String> fields = ConflictDiff.fields(diff);
        out.println("conflict " + i.changeId() + " on record " + i.recordId() + ":");
        out.println("  yours: this device's edit, made " + i.createdAt() + ", based on version " + i.baseVersion()
                + (i.deleted() ? " (deletes the record)" : ""));
        if (!i.deleted()) {
            printLines(out, ConflictDiff.lines(i.payloadJson(), fields));
        }
        out.println("  server's: "
                + (i.serverDeleted()
                        ? "deleted on the server (version " + i.serverVersion() + ")"
                        : i.serverVersion() == 0
                                ? "not on the server"
                                : "version " + i.serverVersion() + " on the server"));
        if (!i.serverLacksRecord()) {
            printLines(out, ConflictDiff.lines(i.serverPayloadJson(), fields));
        }
        out.println("  differs: " + (diff.isEmpty() ? "nothing (the same content)" : describe(diff)));
        String resolve = "leasesync resolve " + keyArgs(key) + " --change " + i.changeId();
        out.println("  resolve: " + resolve + " --keep-mine | --take-theirs | --edit-and-keep JSON");
    }

    /** Prints one conflict copy in full. */
    static void print(PrintWriter out, TaskKey key, ConflictCopies.Copy k) {
        out.println("conflict copy " + k.id() + " of record " + k.recordId() + ": "
                + (k.side() == ConflictCopies.Side.MINE
                        ? "your edit (based on version " + k.version() + ")"
                                + k.madeAt().map(t -> ", made " + t).orElse("")
                        : k.version() == 0
                                ? "the server had no such record"
                                : "the server's version " + k.version()
                                        + k.madeAt().map(t -> ", applied " + t).orElse(""))
                + ", set aside " + k.resolvedAt());
        if (k.deleted()) {
            out.println("    (a deletion)");
        } else {
            printLines(out, ConflictDiff.lines(k.payloadJson(), Set.of()));
        }
        out.println("  restore: leasesync resolve " + keyArgs(key) + " --restore-copy " + k.id()
                + "   delete: leasesync resolve " + keyArgs(key) + " --delete-copy " + k.id());
    }

    /** A conflict for {@code records --conflicts --json}: both sides in full and the differences. */
    static Map<String, Object> json(JdbcLocalEdits.OutboxItem i) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("changeId", i.changeId());
        o.put("recordId", i.recordId());
        Map<String, Object> mine = new LinkedHashMap<>();
        mine.put("baseVersion", i.baseVersion());
        mine.put("deleted", i.deleted());
        mine.put("payload", i.deleted() ? null : i.payloadJson());
        mine.put("madeAt", i.createdAt().toString());
        o.put("mine", mine);
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("version", i.serverVersion());
        server.put("deleted", i.serverDeleted());
        server.put("payload", i.serverLacksRecord() ? null : i.serverPayloadJson());
        o.put("server", server);
        o.put(
                "differences",
                differences(i).stream()
                        .map(d -> {
                            Map<String, Object> one =
                                    new LinkedHashMap<>(); // a stable order for people reading the JSON
                            one.put("path", d.pointer());
                            one.put("change", d.change().name().toLowerCase(java.util.Locale.ROOT));
                            return one;
                        })
                        .toList());
        return o;
    }

    /** A conflict copy for JSON output. */
    static Map<String, Object> json(ConflictCopies.Copy k) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("id", k.id());
        o.put("recordId", k.recordId());
        o.put("changeId", k.changeId());
        o.put("side", k.side().wireName());
        o.put("version", k.version());
        o.put("deleted", k.deleted());
        o.put("payload", k.payloadJson());
        o.put("madeAt", k.madeAt().map(Object::toString).orElse(null));
        o.put("resolvedAt", k.resolvedAt().toString());
        return o;
    }

    /** {@code --user 'alice' --scope course_sync}. */
    static String keyArgs(TaskKey key) {
        return "--user " + Views.shellQuote(key.userId()) + " --scope " + key.scope();
    }

    private static String describe(List<ConflictDiff.Difference> diff) {
        StringBuilder sb = new StringBuilder();
        for (ConflictDiff.Difference d : diff) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(
                    switch (d.change()) {
                        case CHANGED -> d.path() + " (changed)";
                        case ONLY_MINE -> d.path() + " (only in yours)";
                        case ONLY_SERVER -> d.path() + " (only in the server's)";
                        case WHOLE_RECORD -> "the whole record";
                    });
        }
        return sb.toString();
    }

    private static void printLines(PrintWriter out, List<ConflictDiff.Line> lines) {
        for (ConflictDiff.Line l : lines) {
            out.println((l.differs() ? "  ! " : "    ") + l.text());
        }
    }
}
