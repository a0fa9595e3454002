package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.ConflictCopies;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code leasesync records}: the local copy of a task key's data and its outbox. Read-only. */
@Command(
        name = "records",
        mixinStandardHelpOptions = true,
        description =
                "Show the local records of a user and scope, and the local edits waiting in the outbox (with conflicts).")
public final class RecordsCommand implements Callable<Integer> {

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    KeyOptions keyOptions;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Option(
            names = "--conflicts",
            description = "Show only the conflicts, each with both versions in full and the "
                    + "fields that differ marked, and the conflict copies that resolving kept (restorable).")
    boolean conflicts;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TaskKey key;
        try {
            key = keyOptions.key();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        Path dir = dataDir.resolve();
        List<JdbcLocalEdits.LocalRecord> records = List.of();
        List<JdbcLocalEdits.OutboxItem> outbox = List.of();
        List<ConflictCopies.Copy> copies = List.of();
        if (DataDirectory.existsIn(dir)) {
            try (LocalStore store = LocalStore.openFile(dir, dataDir.openTimeout())) {
                JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
                records = conflicts ? List.of() : edits.records(key);
                outbox = edits.outbox(key);
                copies = new ConflictCopies(store.database(), TimeSource.system()).list(key);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (conflicts) {
            return printConflicts(
                    out,
                    key,
                    outbox.stream()
                            .filter(JdbcLocalEdits.OutboxItem::isConflict)
                            .toList(),
                    copies);
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", key.asString());
            m.put(
                    "records",
                    records.stream()
                            .map(r -> Map.of(
                                    "id",
                                    r.id(),
                                    "version",
                                    r.version(),
                                    "deleted",
                                    r.deleted(),
                                    "payload",
                                    r.payloadJson(),
                                    "serverTime",
                                    r.serverTime().toString()))
                            .toList());
            m.put(
                    "outbox",
                    outbox.stream()
                            .map(i -> {
                                Map<String, Object> o = new LinkedHashMap<>();
                                o.put("changeId", i.changeId());
                                o.put("recordId", i.recordId());
                                o.put("state", i.state());
                                o.put("baseVersion", i.baseVersion());
                                o.put("deleted", i.deleted());
                                o.put("payload", i.payloadJson());
                                o.put("serverVersion", i.isConflict() ? i.serverVersion() : null);
                                o.put("serverDeleted", i.isConflict() ? i.serverDeleted() : null);
                                o.put(
                                        "serverPayload",
                                        i.isConflict() && !i.serverLacksRecord() ? i.serverPayloadJson() : null);
                                o.put("rejectedReason", i.rejectedReason().orElse(null));
                                return o;
                            })
                            .toList());
            out.println(Json.write(m));
            return 0;
        }
        out.println(key + ": " + records.size() + " local record(s), " + outbox.size() + " outbox entr"
                + (outbox.size() == 1 ? "y" : "ies"));
        Table t = new Table("RECORD", "VERSION", "CONTENT");
        records.forEach(r -> t.row(r.id(), Long.toString(r.version()), r.deleted() ? "(deleted)" : r.payloadJson()));
        t.print(out, "  (no records: sync this key first)");
        if (!outbox.isEmpty()) {
            out.println("outbox:");
            Table o = new Table("CHANGE", "RECORD", "STATE", "BASE", "YOURS", "SERVER'S (conflicts) / WHY SET ASIDE");
            outbox.forEach(i -> o.row(
                    i.changeId(),
                    i.recordId(),
                    OutboxCommand.state(i),
                    Long.toString(i.baseVersion()),
                    i.deleted() ? "(delete)" : i.payloadJson(),
                    i.isConflict()
                            ? i.serverSide()
                            : i.isSetAside() ? i.rejectedReason().orElse("(unknown state)") : "-"));
            o.print(out, "");
            if (outbox.stream().anyMatch(JdbcLocalEdits.OutboxItem::isSetAside)) {
                out.println("edits set aside are never pushed on their own: see `leasesync outbox list`");
            }
            if (outbox.stream().anyMatch(JdbcLocalEdits.OutboxItem::isConflict)) {
                out.println("both versions of each conflict in full: `leasesync records --conflicts "
                        + ConflictText.keyArgs(key) + "`");
            }
        }
        if (!copies.isEmpty()) {
            out.println(copies.size() + " conflict cop" + (copies.size() == 1 ? "y" : "ies")
                    + " kept (restorable): `leasesync records --conflicts " + ConflictText.keyArgs(key) + "`");
        }
        return 0;
    }

    private int printConflicts(
            PrintWriter out, TaskKey key, List<JdbcLocalEdits.OutboxItem> open, List<ConflictCopies.Copy> copies) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", key.asString());
            m.put("conflicts", open.stream().map(ConflictText::json).toList());
            m.put("copies", copies.stream().map(ConflictText::json).toList());
            out.println(Json.write(m));
            return 0;
        }
        out.println(key + ": " + open.size() + (open.size() == 1 ? " conflict" : " conflicts") + " to resolve, "
                + copies.size() + " conflict cop" + (copies.size() == 1 ? "y" : "ies") + " kept");
        open.forEach(i -> ConflictText.print(out, key, i));
        copies.forEach(k -> ConflictText.print(out, key, k));
        return 0;
    }
}
