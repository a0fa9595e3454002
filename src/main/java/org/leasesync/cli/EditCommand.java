package org.leasesync.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.PayloadJson;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.store.SavedEdit;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushLimits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code leasesync edit}: a local edit into the outbox (pushed by the next sync). */
@Command(
        name = "edit",
        mixinStandardHelpOptions = true,
        description =
                "Make a local edit of a record; it waits in the outbox until a sync pushes it and the server confirms it.")
public final class EditCommand implements Callable<Integer>, WritesDataDir {

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    KeyOptions keyOptions;

    @Option(names = "--id", required = true, description = "Record id (new or existing).")
    String id;

    @Option(
            names = "--payload",
            description = "The record's new content, a JSON object, e.g. '{\"title\":\"Algebra\",\"progress\":0.5}'.")
    String payload;

    @Option(
            names = "--payload-file",
            paramLabel = "PATH",
            description = "Read the record's new content (a JSON object) from this file; '-' reads standard input.")
    String payloadFile;

    @Option(names = "--delete", description = "Delete the record instead.")
    boolean delete;

    @Option(
            names = "--base-version",
            paramLabel = "N",
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
        int given = (payload != null ? 1 : 0) + (payloadFile != null ? 1 : 0) + (delete ? 1 : 0);
        if (given != 1) {
            throw new IllegalArgumentException("give exactly one of --payload JSON, --payload-file PATH or --delete");
        }
        if (delete) {
            json = "{}";
        } else if (payload != null) {
            json = normalize(payload, "--payload");
        } else {
            json = normalize(readPayloadFile(payloadFile), "--payload-file " + payloadFile);
        }
        if (baseVersion != null && baseVersion < 0) {
            throw new IllegalArgumentException("invalid --base-version: must be 0 or more, got " + baseVersion);
        }
        // Refused before the data directory is touched when it cannot fit whatever the record's
        // version (the smallest base version makes the smallest push); the store checks it exactly.
        PushLimits.checkFits(new OutboxEntry(
                0, "00000000-0000-0000-0000-000000000000", id, 0, delete, json, java.time.Instant.EPOCH));
    }

    /** Files larger than this are refused unread: even pretty-printed, such an edit could never be pushed. */
    static final long MAX_PAYLOAD_FILE_BYTES = 8 * PushLimits.MAX_BODY_BYTES;

    /** Reads a payload file ('-' = standard input), at most {@link #MAX_PAYLOAD_FILE_BYTES}. */
    static String readPayloadFile(String path) {
        try (InputStream in = path.equals("-") ? System.in : Files.newInputStream(Path.of(path))) {
            byte[] bytes = in.readNBytes((int) MAX_PAYLOAD_FILE_BYTES + 1);
            if (bytes.length > MAX_PAYLOAD_FILE_BYTES) {
                throw new IllegalArgumentException(
                        "--payload-file " + path + " is larger than " + MAX_PAYLOAD_FILE_BYTES / (1024 * 1024)
                                + " MiB; the sync server accepts at most 5 MiB per push");
            }
            return Utf8Input.text(bytes, "--payload-file " + path);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException("--payload-file " + path + ": no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IllegalArgumentException("--payload-file " + path + ": permission denied");
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("--payload-file " + path + ": cannot read it (" + e.getMessage() + ")");
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
                saved = edits.saveEdit(
                        key,
                        id,
                        json,
                        delete,
                        baseVersion == null ? OptionalLong.empty() : OptionalLong.of(baseVersion));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            String what = (delete ? "delete" : "edit") + " of " + id + " for " + key;
            if (saved.conflict()) {
                spec.commandLine()
                        .getOut()
                        .println("saved " + what + " as a conflict (change " + saved.changeId()
                                + "): you saw version " + baseVersion + " but " + now(saved)
                                + "; nothing is pushed until you"
                                + " resolve it: leasesync resolve --user " + Views.shellQuote(key.userId())
                                + " --scope "
                                + key.scope() + " --change " + saved.changeId() + " --keep-mine (or --take-theirs)");
                return SAVED_AS_CONFLICT;
            }
            spec.commandLine()
                    .getOut()
                    .println("queued " + what + " as change " + saved.changeId() + " (based on version "
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

    /**
     * The payload as saved: compact JSON, checked against the record limits. Jackson is loaded on
     * first use: picocli creates every subcommand when the window starts.
     */
    static String normalize(String payload, String option) {
        return PayloadJson.normalize(payload, option);
    }
}
