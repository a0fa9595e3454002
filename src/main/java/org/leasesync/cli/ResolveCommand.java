package org.leasesync.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.ConflictCopies;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync resolve}: resolves a conflict in the outbox, as the window's conflict view does —
 * keep mine, take the server's, or edit and keep — and says what it kept and where the other side
 * went: a conflict copy, kept until it is restored ({@code --restore-copy}: its content becomes a new
 * edit) or deleted ({@code --delete-copy}). Keeping an edit of a record the server deleted restores
 * it, and says so.
 *
 * <p>Exit codes: 0 done; 1 no such conflict, record, or copy (nothing changed); 2 bad options.
 */
@Command(
        name = "resolve",
        mixinStandardHelpOptions = true,
        description =
                "Resolve a conflict of the outbox ('records --conflicts' shows both versions): keep your edit (it is "
                        + "based on the server's version and pushed by the next sync; a record deleted on the server is restored), "
                        + "take the server's version, or keep an edited version. The side not kept is saved as a conflict copy, "
                        + "which --restore-copy makes an edit again and --delete-copy removes.")
public final class ResolveCommand implements Callable<Integer>, WritesDataDir {

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    KeyOptions keyOptions;

    @Option(names = "--change", paramLabel = "CHANGE_ID", description = "The conflict's change id.")
    String changeId;

    @Option(
            names = "--record",
            paramLabel = "RECORD_ID",
            description = "The record whose conflict to resolve " + "(instead of --change).")
    String recordId;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Choice choice;

    /** Exactly one of the resolutions, or one action on a conflict copy. */
    static final class Choice {
        @Option(
                names = "--keep-mine",
                required = true,
                description = "Keep your edit; the server's version becomes a conflict copy.")
        boolean keepMine;

        @Option(
                names = "--take-theirs",
                required = true,
                description = "Take the server's version; your edit becomes a conflict copy.")
        boolean takeTheirs;

        @Option(
                names = "--edit-and-keep",
                required = true,
                paramLabel = "JSON",
                description =
                        "Keep this content (a JSON object) instead of your edit; the server's version becomes a conflict copy.")
        String editAndKeep;

        @Option(
                names = "--restore-copy",
                required = true,
                paramLabel = "COPY_ID",
                description =
                        "Save a conflict copy's content as a new edit (pushed by the next sync) and remove the copy.")
        Long restoreCopy;

        @Option(
                names = "--delete-copy",
                required = true,
                paramLabel = "COPY_ID",
                description = "Delete a conflict copy for good.")
        Long deleteCopy;

        boolean onCopy() {
            return restoreCopy != null || deleteCopy != null;
        }
    }

    @Spec
    CommandSpec spec;

    private TaskKey key;
    private String editedJson;

    @Override
    public void validate() {
        key = keyOptions.key();
        if (choice.onCopy()) {
            if (changeId != null || recordId != null) {
                throw new IllegalArgumentException((choice.restoreCopy != null ? "--restore-copy" : "--delete-copy")
                        + " names a conflict copy by its id alone: drop --change and --record");
            }
            return;
        }
        if ((changeId == null) == (recordId == null)) {
            throw new IllegalArgumentException(
                    "give the conflict's --change CHANGE_ID or its --record RECORD_ID (one of them;"
                            + " leasesync records --conflicts " + ConflictText.keyArgs(key) + " lists them)");
        }
        if (changeId != null && changeId.isBlank()) {
            throw new IllegalArgumentException("invalid --change: give the conflict's change id");
        }
        if (recordId != null) {
            try {
                JdbcLocalEdits.validateRecordId(recordId);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid --record: " + e.getMessage());
            }
        }
        if (choice.editAndKeep != null) {
            editedJson = EditCommand.normalize(choice.editAndKeep, "--edit-and-keep");
        }
    }

    @Override
    public Integer call() {
        if (key == null) {
            try {
                validate();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        try (LocalStore store = LocalStore.openFile(dataDir.resolve(), dataDir.openTimeout())) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            ConflictCopies copies = new ConflictCopies(store.database(), TimeSource.system());
            if (choice.onCopy()) {
                return onCopy(copies);
            }
            Optional<String> change = changeId != null ? Optional.of(changeId) : conflictOf(edits);
            if (change.isEmpty()) {
                return 1;
            }
            ConflictCopies.Choice c = choice.keepMine
                    ? ConflictCopies.Choice.KEEP_MINE
                    : choice.takeTheirs ? ConflictCopies.Choice.TAKE_SERVERS : ConflictCopies.Choice.EDIT_AND_KEEP;
            Optional<ConflictCopies.Resolution> done;
            try {
                done = copies.resolve(key, change.get(), c, Optional.ofNullable(editedJson));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            if (done.isEmpty()) {
                err("no conflict " + change.get() + " in the outbox of " + key + " (leasesync records --conflicts "
                        + ConflictText.keyArgs(key) + " lists them)");
                return 1;
            }
            spec.commandLine()
                    .getOut()
                    .println(message(done.get()) + "; "
                            + copyHint(key, done.get().copy()));
            return 0;
        }
    }

    /** The change id of {@link #recordId}'s conflict; empty (with the reason printed) when it has none. */
    private Optional<String> conflictOf(JdbcLocalEdits edits) {
        Optional<JdbcLocalEdits.OutboxItem> conflict = edits.outbox(key).stream()
                .filter(i -> i.recordId().equals(recordId) && i.isConflict())
                .findFirst();
        if (conflict.isEmpty()) {
            boolean known = edits.record(key, recordId).isPresent()
                    || edits.outbox(key).stream().anyMatch(i -> i.recordId().equals(recordId));
            err(
                    known
                            ? "record " + recordId + " of " + key + " has no conflict to resolve"
                            : "no record " + recordId + " in the local data of " + key + " (leasesync records "
                                    + ConflictText.keyArgs(key) + " lists them)");
        }
        return conflict.map(JdbcLocalEdits.OutboxItem::changeId);
    }

    private int onCopy(ConflictCopies copies) {
        long id = choice.restoreCopy != null ? choice.restoreCopy : choice.deleteCopy;
        if (choice.deleteCopy != null) {
            Optional<ConflictCopies.Copy> copy = copies.copy(key, id);
            if (copy.isEmpty() || !copies.delete(key, id)) {
                return noCopy(id);
            }
            spec.commandLine()
                    .getOut()
                    .println("deleted conflict copy " + id + " of " + copy.get().recordId());
            return 0;
        }
        Optional<ConflictCopies.Restored> restored;
        try {
            restored = copies.restore(key, id);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (restored.isEmpty()) {
            return noCopy(id);
        }
        ConflictCopies.Restored r = restored.get();
        spec.commandLine()
                .getOut()
                .println("restored conflict copy " + id + " of " + r.copy().recordId()
                        + " as a new " + (r.copy().deleted() ? "deletion" : "edit") + " (change "
                        + r.edit().changeId()
                        + ", based on version " + r.edit().baseVersion() + "); the next sync pushes it");
        return 0;
    }

    private int noCopy(long id) {
        err("no conflict copy " + id + " of " + key + " (leasesync records --conflicts " + ConflictText.keyArgs(key)
                + " lists them)");
        return 1;
    }

    private void err(String text) {
        spec.commandLine().getErr().println("leasesync: " + text);
    }

    /** What the resolution kept, in plain words. */
    static String message(ConflictCopies.Resolution r) {
        JdbcLocalEdits.OutboxItem conflict = r.conflict();
        return switch (r.choice()) {
            case KEEP_MINE -> "kept your edit: " + conflict.keepMineMeans();
            case EDIT_AND_KEEP -> "kept your edited version: " + conflict.keepMineMeans();
            case TAKE_SERVERS -> "took the server's version of " + conflict.recordId() + "; your edit left the outbox";
        };
    }

    /** Where the side not kept went, and how to get it back or delete it. */
    static String copyHint(TaskKey key, ConflictCopies.Copy copy) {
        String args = ConflictText.keyArgs(key);
        return (copy.side() == ConflictCopies.Side.MINE ? "your edit" : "the server's version")
                + " is kept as conflict copy "
                + copy.id() + " (restore it: leasesync resolve " + args + " --restore-copy " + copy.id()
                + "; delete it: leasesync resolve " + args + " --delete-copy " + copy.id() + ")";
    }
}
