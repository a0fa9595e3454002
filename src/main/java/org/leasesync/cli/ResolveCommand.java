package org.leasesync.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code leasesync resolve}: resolves a conflict in the outbox, as the window's Keep mine / Take
 * server's buttons do. Keeping an edit of a record the server deleted restores it, and says so.
 * Exit code 1 when there is no such conflict.
 */
@Command(name = "resolve", mixinStandardHelpOptions = true,
        description = "Resolve a conflict of the outbox ('records' lists them): keep your edit (it is based on the "
                + "server's version and pushed by the next sync; a record deleted on the server is restored) or take "
                + "the server's version (your edit is dropped).")
public final class ResolveCommand implements Callable<Integer>, WritesDataDir {

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    KeyOptions keyOptions;

    @Option(names = "--change", required = true, paramLabel = "CHANGE_ID", description = "The conflict's change id.")
    String changeId;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Choice choice;

    /** Exactly one of the two resolutions. */
    static final class Choice {
        @Option(names = "--keep-mine", required = true, description = "Keep your edit.")
        boolean keepMine;

        @Option(names = "--take-theirs", required = true, description = "Take the server's version; drop your edit.")
        boolean takeTheirs;
    }

    @Spec
    CommandSpec spec;

    private TaskKey key;

    @Override
    public void validate() {
        key = keyOptions.key();
        if (changeId == null || changeId.isBlank()) {
            throw new IllegalArgumentException("invalid --change: give the conflict's change id");
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
            Optional<JdbcLocalEdits.OutboxItem> conflict = edits.entry(key, changeId).filter(JdbcLocalEdits.OutboxItem::isConflict);
            boolean done = conflict.isPresent()
                    && (choice.keepMine ? edits.keepMine(key, changeId) : edits.takeTheirs(key, changeId));
            if (!done) {
                spec.commandLine().getErr().println("leasesync: no conflict " + changeId + " in the outbox of " + key
                        + " (leasesync records --user " + Views.shellQuote(key.userId()) + " --scope " + key.scope()
                        + " lists them)");
                return 1;
            }
            spec.commandLine().getOut().println(message(conflict.get(), choice.keepMine));
            return 0;
        }
    }

    /** What the resolution means for the record, in plain words. */
    static String message(JdbcLocalEdits.OutboxItem conflict, boolean keptMine) {
        return keptMine ? "kept your edit: " + conflict.keepMineMeans()
                : "took the server's version of " + conflict.recordId() + "; your edit is dropped";
    }
}
