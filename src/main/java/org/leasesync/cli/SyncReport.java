package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.leasesync.client.Account;
import org.leasesync.client.ClientRuntime;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.RunView;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;

/**
 * What {@code leasesync sync} prints about the outcome of its trigger, and the exit code that goes
 * with it: a run's result, a joined run, a key that needs attention (with the commands that resolve
 * it), a server that asked to wait, a sign-in that is needed again; one line (or lines) for people, or
 * one JSON object with {@code --json}. Apart from {@link SyncCommand}, which decides what to submit
 * and waits for it, because the wording of every outcome is a job of its own.
 */
final class SyncReport {

    private final boolean json;
    private final PrintWriter err;
    private final boolean dataDirGiven;
    private final Path dataDir;
    private final Optional<Account> account;
    private final String server;

    /**
     * @param err standard error, for the pointer to the log files
     * @param dataDirGiven whether --data-dir was given (the suggested commands repeat it)
     * @param account the signed-in account used; empty when a token was given
     * @param server the --server option as given (null without it)
     */
    SyncReport(
            boolean json,
            PrintWriter err,
            boolean dataDirGiven,
            Path dataDir,
            Optional<Account> account,
            String server) {
        this.json = json;
        this.err = err;
        this.dataDirGiven = dataDirGiven;
        this.dataDir = dataDir;
        this.account = account;
        this.server = server;
    }

    /** After a successful run, as lines: the edits that wait for the user (conflicts, set aside); nothing in JSON. */
    void outboxNotes(PrintWriter out, ClientRuntime rt, TaskKey key, RunResult result) {
        if (result.status() == RunStatus.SUCCEEDED && !json) {
            var outbox = rt.edits().outbox(key);
            long conflicts = outbox.stream().filter(i -> i.isConflict()).count();
            if (conflicts > 0) {
                out.println(
                        conflicts == 1
                                ? "1 local edit of " + key
                                        + " conflicts with a newer server version and waits for you: "
                                        + "see `leasesync records`"
                                : conflicts + " local edits of " + key
                                        + " conflict with newer server versions and wait "
                                        + "for you: see `leasesync records`");
            }
            long setAside = outbox.stream().filter(i -> i.isSetAside()).count();
            if (setAside > 0) {
                out.println(setAside + " local edit" + (setAside == 1 ? " of " + key + " was" : "s of " + key + " were")
                        + " refused by the sync server for good and set aside (the others were "
                        + "pushed): see `leasesync outbox list`");
            }
        }
    }

    int report(PrintWriter out, ClientRuntime rt, TaskKey key, RunResult result) {
        String msg = result.message().orElse("");
        switch (result.status()) {
            case SUCCEEDED -> {
                if (json) {
                    var outbox = rt.edits().outbox(key);
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("key", key.asString());
                    m.put("result", "succeeded");
                    m.put("runId", result.runId());
                    m.put("message", result.message().orElse(null));
                    m.put(
                            "conflicts",
                            outbox.stream().filter(i -> i.isConflict()).count());
                    m.put(
                            "setAside",
                            outbox.stream().filter(i -> i.isSetAside()).count());
                    out.println(Json.write(m));
                } else {
                    out.println(key + " synced (run " + result.runId() + ")"
                            + result.message().map(note -> "\n  " + note).orElse(""));
                }
                return 0;
            }
            case NEEDS_ATTENTION -> {
                return needsAttention(out, rt, key, result.runId(), msg);
            }
            case SIGNED_OUT -> {
                String pending = pendingEdits(rt, key);
                print(
                        out,
                        key,
                        result.status().wireName(),
                        result.runId(),
                        msg,
                        key + " sync stopped: " + msg + (pending.isEmpty() ? "" : "; " + pending) + "\n  "
                                + signInAgain(key));
                return SyncCommand.SIGNED_OUT;
            }
            default -> {
                print(
                        out,
                        key,
                        result.status().wireName(),
                        result.runId(),
                        msg,
                        key + " sync " + (result.status() == RunStatus.CANCELLED ? "cancelled" : "failed") + ": "
                                + msg);
                // stderr, so that standard output stays the one result line (or JSON) scripts read;
                // a run cancelled by a stop signal failed at nothing, and the stop says so itself
                if (result.status() != RunStatus.CANCELLED) {
                    LoggingSetup.activeLogFolder()
                            .ifPresent(f -> err.println("leasesync: details are in the log files in " + f));
                }
                return 1;
            }
        }
    }

    /** The key needs attention: what is known (the unconfirmed push) and the commands that resolve it. */
    int needsAttention(PrintWriter out, ClientRuntime rt, TaskKey key, String runId, String reason) {
        var push = rt.store().history().checkpoint(key).filter(org.leasesync.run.Checkpoint::hasPushInFlight);
        String idempotencyKey =
                push.flatMap(org.leasesync.run.Checkpoint::idempotencyKey).orElse(null);
        java.util.List<String> changeIds =
                push.map(org.leasesync.run.Checkpoint::pushChangeIds).orElse(java.util.List.of());
        String again = "leasesync sync --user " + Views.shellQuote(key.userId()) + " --scope " + key.scope()
                + (dataDirGiven ? " --data-dir " + Views.shellQuote(dataDir.toString()) : "")
                + (account.isPresent() ? "" : " --server " + Views.shellQuote(server) + " --token-file FILE");
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", key.asString());
            m.put("result", "needs_attention");
            m.put("runId", runId);
            m.put("message", reason);
            m.put("idempotencyKey", idempotencyKey);
            m.put("changeIds", changeIds);
            m.put("checkAgain", again + " --check-again");
            m.put("discardUnconfirmed", again + " --discard-unconfirmed");
            out.println(Json.write(m));
        } else {
            out.println(key + " needs attention: " + reason);
            if (idempotencyKey != null) {
                out.println("  unconfirmed push: idempotency key " + idempotencyKey + ", changes "
                        + String.join(", ", changeIds));
            }
            out.println("  nothing is retried automatically; once the server answers, check again:");
            out.println("    " + again + " --check-again");
            out.println("  or send the edits again under a new key (the server applies each change at most once):");
            out.println("    " + again + " --discard-unconfirmed");
        }
        return SyncCommand.NEEDS_ATTENTION;
    }

    /** "2 local edits are kept and pushed after you sign in again", or empty when none wait. */
    static String pendingEdits(ClientRuntime rt, TaskKey key) {
        long n = rt.edits().outbox(key).stream().filter(i -> !i.isSetAside()).count();
        return n == 0
                ? ""
                : n + " local edit" + (n == 1 ? " is" : "s are") + " kept and pushed after you sign in again";
    }

    /** The command that signs in again, for the account used or the server given. */
    String signInAgain(TaskKey key) {
        String servers = account.map(a -> String.join(
                        ",", a.servers().urls().stream().map(Object::toString).toList()))
                .orElse(server);
        return "sign in again: leasesync login --server " + Views.shellQuote(servers) + " --user "
                + Views.shellQuote(key.userId())
                + (dataDirGiven ? " --data-dir " + Views.shellQuote(dataDir.toString()) : "") + " --password-stdin";
    }

    int joined(PrintWriter out, TaskKey key, RunView v) {
        String sources = v.firstSource().wireName()
                + (v.mergedSources().isEmpty()
                        ? ""
                        : " (joined by "
                                + org.leasesync.run.SourceCounts.of(v.mergedSources())
                                        .text() + ")");
        String stage = v.stage().map(s -> s.wireName()).orElse("starting");
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", key.asString());
            m.put("result", "joined");
            m.put("runId", v.runId());
            m.put("stage", stage);
            m.put("startedAt", v.startedAt().toString());
            m.put("firstSource", v.firstSource().wireName());
            m.put(
                    "mergedSources",
                    v.mergedSources().stream().map(TaskSource::wireName).toList());
            m.put("owner", v.owner());
            m.put("epoch", v.epoch());
            out.println(Json.write(m));
        } else {
            out.println("already syncing " + key + " — run " + v.runId() + ", " + stage + ", started "
                    + Views.local(v.startedAt()) + " by " + sources + ", owner " + v.owner()
                    + "; this request joined it");
        }
        return SyncCommand.JOINED;
    }

    /**
     * The sync server asked not to be contacted about the key before a time, and it has not come:
     * nothing was sent. Says when it may try again, in local time and in UTC.
     */
    int waiting(PrintWriter out, TaskKey key, SubmitResult.Waiting w) {
        java.time.ZonedDateTime local = w.until().atZone(java.time.ZoneId.systemDefault());
        String at = local.format(java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss")) + " ("
                + java.time.format.DateTimeFormatter.ISO_INSTANT.format(
                        w.until().truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
                + ")";
        String message = "the sync server asked to wait until " + at + ": " + w.reason();
        print(
                out,
                key,
                "waiting",
                null,
                message,
                key + " not synced: the sync server asked to wait until " + at + "; try again after that (" + w.reason()
                        + ")");
        return SyncCommand.EXIT_SERVER_WAIT;
    }

    void print(PrintWriter out, TaskKey key, String result, String runId, String message, String line) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", key.asString());
            m.put("result", result);
            m.put("runId", runId);
            m.put("message", message);
            out.println(Json.write(m));
        } else {
            out.println(line);
        }
    }
}
