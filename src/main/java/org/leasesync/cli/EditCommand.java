package org.leasesync.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TimeSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.store.SavedEdit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code leasesync edit}: a local edit into the outbox (pushed by the next sync). */
@Command(name = "edit", mixinStandardHelpOptions = true,
        description = "Make a local edit of a record; it waits in the outbox until a sync pushes it and the server confirms it.")
public final class EditCommand implements Callable<Integer>, WritesDataDir {

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    KeyOptions keyOptions;

    @Option(names = "--id", required = true, description = "Record id (new or existing).")
    String id;

    @Option(names = "--payload", description = "The record's new content, a JSON object, e.g. '{\"title\":\"Algebra\",\"progress\":0.5}'.")
    String payload;

    @Option(names = "--delete", description = "Delete the record instead.")
    boolean delete;

    @Option(names = "--base-version", paramLabel = "N",
            description = "The record's version you saw (the VERSION column of 'records'; 0 = you saw no such record). "
                    + "If the record has changed since, the edit is saved as a conflict instead of overwriting that "
                    + "change (exit code " + EditCommand.SAVED_AS_CONFLICT + "). Without it, the edit is based on "
                    + "whatever version this device has now.")
    Long baseVersion;

    @Spec
    CommandSpec spec;

    private TaskKey key;
    private String json;

    @Override
    public void validate() {
        key = keyOptions.key();
        try {
            JdbcLocalEdits.validateRecordId(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --id: " + e.getMessage());
        }
        if (delete == (payload != null)) {
            throw new IllegalArgumentException("give exactly one of --payload JSON or --delete");
        }
        json = delete ? "{}" : normalize(payload);
        if (baseVersion != null && baseVersion < 0) {
            throw new IllegalArgumentException("invalid --base-version: must be 0 or more, got " + baseVersion);
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
            SavedEdit saved;
            try {
                saved = edits.saveEdit(key, id, json, delete,
                        baseVersion == null ? OptionalLong.empty() : OptionalLong.of(baseVersion));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            String what = (delete ? "delete" : "edit") + " of " + id + " for " + key;
            if (saved.conflict()) {
                spec.commandLine().getOut().println("saved " + what + " as a conflict (change " + saved.changeId()
                        + "): you saw version " + baseVersion + " but " + now(saved) + "; nothing is pushed until you"
                        + " resolve it: leasesync resolve --user " + Views.shellQuote(key.userId()) + " --scope "
                        + key.scope() + " --change " + saved.changeId() + " --keep-mine (or --take-theirs)");
                return SAVED_AS_CONFLICT;
            }
            spec.commandLine().getOut().println("queued " + what + " as change " + saved.changeId() + " (based on version "
                    + saved.baseVersion() + "; " + edits.pendingCount(key) + " waiting to be pushed)");
            return 0;
        }
    }

    /** Exit code: the edit was saved, as a conflict (the record changed since {@code --base-version}). */
    static final int SAVED_AS_CONFLICT = 5;

    private static String now(SavedEdit saved) {
        if (saved.currentVersion() == 0) {
            return "this device has no such record now (it is not on the server)";
        }
        return "this device now has version " + saved.currentVersion()
                + (saved.currentDeleted() ? ", deleted on the server" : ", changed by another device");
    }

    private static final ObjectMapper STRICT_JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    static String normalize(String payload) {
        try {
            JsonNode n = STRICT_JSON.readTree(payload);
            if (n == null || !n.isObject()) {
                throw new IllegalArgumentException("--payload must be a JSON object like {\"title\":\"x\"}, got: " + payload);
            }
            return n.toString();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("--payload is not valid JSON: " + e.getOriginalMessage());
        }
    }
}
