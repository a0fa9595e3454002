package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync outbox}: the local edits waiting to be pushed, and the way out for edits the sync
 * server refuses for good (set aside as rejected): {@code list}, {@code discard}, {@code send-again}.
 */
@Command(
        name = "outbox",
        mixinStandardHelpOptions = true,
        description =
                "List a key's local edits (pending, in conflict, set aside as rejected), and discard or send again "
                        + "an edit that was set aside.",
        subcommands = {
            OutboxCommand.ListCommand.class,
            OutboxCommand.DiscardCommand.class,
            OutboxCommand.SendAgainCommand.class
        })
public final class OutboxCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "give a subcommand: list, discard or send-again");
    }

    /** {@code outbox list}: read-only. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List the key's outbox: each edit with its state, and why an edit was set aside.")
    public static final class ListCommand implements Callable<Integer> {

        @Mixin
        DataDirMixin dataDir;

        @Mixin
        KeyOptions keyOptions;

        @Option(names = "--json", description = "Print JSON.")
        boolean json;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            TaskKey key = key(keyOptions, spec);
            Path dir = dataDir.resolve();
            List<JdbcLocalEdits.OutboxItem> outbox = List.of();
            if (DataDirectory.existsIn(dir)) {
                try (LocalStore store = LocalStore.openFile(dir, dataDir.openTimeout())) {
                    outbox = new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(key);
                }
            }
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("key", key.asString());
                m.put("outbox", outbox.stream().map(OutboxCommand::view).toList());
                out.println(Json.write(m));
                return 0;
            }
            long setAside = outbox.stream()
                    .filter(JdbcLocalEdits.OutboxItem::isSetAside)
                    .count();
            out.println(key + ": " + outbox.size() + " outbox entr" + (outbox.size() == 1 ? "y" : "ies")
                    + (setAside == 0 ? "" : ", " + setAside + " set aside"));
            Table t = new Table("CHANGE", "RECORD", "STATE", "MADE", "SIZE", "WHY SET ASIDE");
            outbox.forEach(i -> t.row(
                    i.changeId(),
                    i.recordId(),
                    state(i),
                    Views.local(i.createdAt()),
                    i.deleted() ? "(delete)" : i.payloadJson().getBytes(StandardCharsets.UTF_8).length + " B",
                    i.isSetAside() ? i.rejectedReason().orElse("(unknown state)") : "-"));
            t.print(out, "  (empty: nothing waits to be pushed)");
            if (setAside > 0) {
                String args = " --user " + Views.shellQuote(key.userId()) + " --scope " + key.scope()
                        + (dataDir.given() ? " --data-dir " + Views.shellQuote(dir.toString()) : "") + " CHANGE";
                out.println(
                        "an edit set aside is never pushed on its own; drop it, or queue it again once its cause is gone:");
                out.println("  leasesync outbox discard" + args);
                out.println("  leasesync outbox send-again" + args);
            }
            return 0;
        }
    }

    /** {@code outbox discard CHANGE}. */
    @Command(
            name = "discard",
            mixinStandardHelpOptions = true,
            description = "Discard an edit that was set aside (refused by the sync server for good). It is gone for "
                    + "good; the next sync brings the server's version of the record.")
    public static final class DiscardCommand extends SetAsideAction {

        @Override
        boolean apply(JdbcLocalEdits edits, TaskKey key, String changeId) {
            return edits.discardSetAside(key, changeId);
        }

        @Override
        String done(JdbcLocalEdits.OutboxItem item, String changeId) {
            return "discarded the set-aside edit of " + item.recordId() + " (change " + changeId
                    + "); the next sync brings the server's version of " + item.recordId();
        }
    }

    /** {@code outbox send-again CHANGE}. */
    @Command(
            name = "send-again",
            mixinStandardHelpOptions = true,
            description =
                    "Queue an edit that was set aside again, unchanged (for when its cause is gone, e.g. the server "
                            + "now accepts it). If the record changed meanwhile, the push reports a conflict.")
    public static final class SendAgainCommand extends SetAsideAction {

        @Override
        boolean apply(JdbcLocalEdits edits, TaskKey key, String changeId) {
            return edits.sendAgain(key, changeId);
        }

        @Override
        String done(JdbcLocalEdits.OutboxItem item, String changeId) {
            return "queued the edit of " + item.recordId() + " (change " + changeId
                    + ") again; the next sync pushes it";
        }
    }

    /** What {@code discard} and {@code send-again} share: one set-aside edit of a key, by change id. */
    abstract static class SetAsideAction implements Callable<Integer>, WritesDataDir {

        @Mixin
        DataDirMixin dataDir;

        @Mixin
        KeyOptions keyOptions;

        @Parameters(paramLabel = "CHANGE", description = "The change id of the edit (from `leasesync outbox list`).")
        String changeId;

        @Spec
        CommandSpec spec;

        /** Applies the action to a set-aside edit; false when it was not set aside (any more). */
        abstract boolean apply(JdbcLocalEdits edits, TaskKey key, String changeId);

        /** The line printed once the action is done. */
        abstract String done(JdbcLocalEdits.OutboxItem item, String changeId);

        @Override
        public void validate() {
            keyOptions.key();
        }

        @Override
        public Integer call() {
            TaskKey key = key(keyOptions, spec);
            try (LocalStore store = LocalStore.openFile(dataDir.resolve(), dataDir.openTimeout())) {
                JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
                Optional<JdbcLocalEdits.OutboxItem> item = find(edits, key, changeId);
                if (item.isEmpty() || !apply(edits, key, changeId)) {
                    return notSetAside(spec, key, changeId, item);
                }
                spec.commandLine().getOut().println(done(item.get(), changeId));
                return 0;
            }
        }
    }

    private static TaskKey key(KeyOptions options, CommandSpec spec) {
        try {
            return options.key();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private static Optional<JdbcLocalEdits.OutboxItem> find(JdbcLocalEdits edits, TaskKey key, String changeId) {
        return edits.outbox(key).stream()
                .filter(i -> i.changeId().equals(changeId))
                .findFirst();
    }

    private static int notSetAside(
            CommandSpec spec, TaskKey key, String changeId, Optional<JdbcLocalEdits.OutboxItem> item) {
        String why = item.isEmpty()
                ? key + " has no outbox entry with change id " + changeId
                : "the edit " + changeId + " of " + key + " is " + item.get().state() + ", not set aside"
                        + (item.get().isConflict()
                                ? "; resolve the conflict in the window's Data tab (Keep mine / " + "Take server's)"
                                : "; the next sync pushes it");
        spec.commandLine().getErr().println("leasesync: " + why);
        return 1;
    }

    static String state(JdbcLocalEdits.OutboxItem i) {
        return i.isPending() || i.isConflict() || i.isRejected() ? i.state() : "unknown ('" + i.state() + "')";
    }

    static Map<String, Object> view(JdbcLocalEdits.OutboxItem i) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("changeId", i.changeId());
        o.put("recordId", i.recordId());
        o.put("state", i.state());
        o.put("setAside", i.isSetAside());
        o.put("baseVersion", i.baseVersion());
        o.put("deleted", i.deleted());
        o.put("createdAt", i.createdAt().toString());
        o.put("payloadBytes", i.payloadJson().getBytes(StandardCharsets.UTF_8).length);
        o.put("rejectedReason", i.rejectedReason().orElse(null));
        o.put("rejectedAt", i.rejectedAt().map(Object::toString).orElse(null));
        return o;
    }
}
