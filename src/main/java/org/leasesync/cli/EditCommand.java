package org.leasesync.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.Callable;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TimeSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
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
            String changeId;
            try {
                changeId = edits.addEdit(key, id, json, delete);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            spec.commandLine().getOut().println("queued " + (delete ? "delete" : "edit") + " of " + id + " for " + key
                    + " as change " + changeId + " (" + edits.pendingCount(key) + " waiting to be pushed)");
            return 0;
        }
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
