package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code leasesync status}: leases, last run per key, checkpoints. Read-only. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = "Show leases (key, owner, epoch, expiry), the last run per task key, and checkpoints.")
public final class StatusCommand implements Callable<Integer> {

    @Mixin
    DataDirMixin dataDir;

    @Option(names = "--json", description = "Print JSON instead of tables.")
    boolean json;

    @Spec
    CommandSpec spec;

    private final TimeSource time;

    public StatusCommand() {
        this(TimeSource.system());
    }

    StatusCommand(TimeSource time) {
        this.time = time;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Path dir = dataDir.resolve();
        Instant now = time.now();
        if (!DataDirectory.existsIn(dir)) {
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("dataDir", dir.toString());
                m.put("database", null);
                m.put("leases", List.of());
                m.put("lastRuns", List.of());
                m.put("checkpoints", List.of());
                m.put("needsAttention", List.of());
                m.put("signedOut", List.of());
                m.put("accounts", accounts(dir));
                out.println(Json.write(m));
            } else {
                out.println("data directory: " + dir);
                out.println("no leasesync database here yet: nothing has run.");
            }
            return 0;
        }
        try (LocalStore store = LocalStore.openFile(dir, dataDir.openTimeout())) {
            var leases = store.leases().readAll().stream()
                    .map(l -> Views.LeaseView.of(l, now))
                    .toList();
            var runs = store.history().lastRunPerKey().stream()
                    .map(Views.RunView::of)
                    .toList();
            var checkpointRows = store.history().checkpoints();
            var checkpoints =
                    checkpointRows.stream().map(Views.CheckpointView::of).toList();
            String dataDirArgument = dataDir.given() ? " --data-dir " + Views.shellQuote(dir.toString()) : "";
            var attention = store.history().lastRunPerKey().stream()
                    .filter(r -> r.status().orElse(null) == org.leasesync.run.RunStatus.NEEDS_ATTENTION)
                    .map(r -> Views.NeedsAttentionView.of(
                            r,
                            checkpointRows.stream()
                                    .filter(c -> c.key().equals(r.key()))
                                    .findFirst(),
                            dataDirArgument))
                    .toList();
            var signedOut = store.history().lastRunPerKey().stream()
                    .filter(r -> r.status().orElse(null) == org.leasesync.run.RunStatus.SIGNED_OUT)
                    .map(r -> signedOut(r, dataDirArgument))
                    .toList();
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("dataDir", dir.toString());
                m.put("database", store.database().description());
                m.put("now", now.toString());
                m.put("leases", leases);
                m.put("lastRuns", runs);
                m.put("checkpoints", checkpoints);
                m.put("needsAttention", attention);
                m.put("signedOut", signedOut);
                m.put("accounts", accounts(dir));
                out.println(Json.write(m));
                return 0;
            }
            out.println("data directory: " + dir);
            out.println();
            out.println("leases:");
            Table t = new Table("KEY", "STATE", "OWNER", "EPOCH", "EXPIRES");
            for (var l : leases) {
                Instant exp = Instant.parse(l.expiresAt());
                // the expiry is the holder's wall clock: shown against ours only when they agree
                String expires = !l.state().equals("held")
                        ? "-"
                        : l.expiresInMillis() != null
                                ? Views.local(exp) + " (" + Views.relative(now, exp) + ")"
                                : "unknown: renewed " + Views.local(Instant.parse(l.renewedAt()))
                                        + " by the holder's clock (stopped, or clocks disagree)";
                t.row(l.key(), l.state(), Views.orDash(l.owner()), Long.toString(l.epoch()), expires);
            }
            t.print(out, "  (none)");
            out.println();
            out.println("last run per key:");
            t = new Table("KEY", "STATUS", "STAGE", "SOURCES", "EPOCH", "STARTED", "ENDED", "RUN", "ERROR");
            for (var r : runs) {
                String sources = r.firstSource()
                        + (r.mergedSources().isEmpty() ? "" : " +" + String.join(",+", r.mergedSources()));
                t.row(
                        r.key(),
                        r.status(),
                        r.stage(),
                        sources,
                        Long.toString(r.epoch()),
                        Views.local(Instant.parse(r.startedAt())),
                        r.endedAt() == null ? "-" : Views.local(Instant.parse(r.endedAt())),
                        r.runId(),
                        Views.orDash(r.error()));
            }
            t.print(out, "  (none)");
            out.println();
            out.println("checkpoints:");
            t = new Table("KEY", "STAGE", "PULL CURSOR", "PUSH BATCH", "IDEMPOTENCY KEY", "EPOCH", "UPDATED");
            for (var c : checkpoints) {
                t.row(
                        c.key(),
                        c.stage(),
                        Views.orDash(c.pullCursor()),
                        Views.orDash(c.pushBatchId()),
                        Views.orDash(c.idempotencyKey()),
                        Long.toString(c.epoch()),
                        Views.local(Instant.parse(c.updatedAt())));
            }
            t.print(out, "  (none)");
            printNeedsAttention(out, attention);
            printSignedOut(out, signedOut);
            printAccounts(out, accounts(dir));
            return 0;
        }
    }

    /** A key whose last run the server refused the session for, and how to sign in again. */
    private static Map<String, Object> signedOut(org.leasesync.run.RunRecord r, String dataDirArgument) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", r.key().asString());
        m.put("runId", r.runId());
        m.put("message", r.error().orElse(null));
        String server = r.origin()
                .map(org.leasesync.run.RunOrigin::server)
                .orElse("URL")
                .replace(", ", ",");
        m.put(
                "signInAgain",
                "leasesync login --server " + Views.shellQuote(server) + " --user "
                        + Views.shellQuote(r.key().userId()) + dataDirArgument + " --password-stdin");
        return m;
    }

    private static void printSignedOut(PrintWriter out, List<Map<String, Object>> signedOut) {
        if (signedOut.isEmpty()) {
            return;
        }
        out.println();
        out.println("signed out (the server refused the session; local data and unsent edits are kept):");
        for (var s : signedOut) {
            out.println("  " + s.get("key") + ": " + Views.orDash((String) s.get("message")));
            out.println("    sign in again:  " + s.get("signInAgain"));
        }
    }

    /** The signed-in accounts (never a token); an unreadable accounts file is reported, not fatal here. */
    private static List<Map<String, Object>> accounts(Path dir) {
        try {
            return org.leasesync.client.AccountService.forThisProcess(dir).accounts().stream()
                    .map(a -> {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("server", a.server());
                        m.put("user", a.user());
                        m.put("tokenKeptIn", a.tokenPlace().wireName());
                        return m;
                    })
                    .toList();
        } catch (org.leasesync.lease.LeasesyncException e) {
            return List.of(Map.of("error", e.getMessage()));
        }
    }

    private static void printAccounts(PrintWriter out, List<Map<String, Object>> accounts) {
        out.println();
        out.println("signed-in accounts:");
        Table t = new Table("SERVER", "USER", "TOKEN KEPT IN");
        for (var a : accounts) {
            if (a.containsKey("error")) {
                out.println("  " + a.get("error"));
                continue;
            }
            t.row((String) a.get("server"), (String) a.get("user"), (String) a.get("tokenKeptIn"));
        }
        t.print(out, "  (none)");
    }

    /** What is known about each key that needs attention, and how to resolve it. */
    private static void printNeedsAttention(PrintWriter out, List<Views.NeedsAttentionView> attention) {
        if (attention.isEmpty()) {
            return;
        }
        out.println();
        out.println("needs attention (nothing is retried automatically):");
        for (var a : attention) {
            out.println("  " + a.key() + ": " + a.reason());
            if (a.idempotencyKey() != null) {
                out.println("    unconfirmed push: idempotency key " + a.idempotencyKey() + ", "
                        + a.changeIds().size() + " change" + (a.changeIds().size() == 1 ? "" : "s") + ": "
                        + String.join(", ", a.changeIds()));
            }
            out.println("    once the server answers, check again:  " + a.checkAgain());
            out.println("    or send the edits again under a new key (the server applies each change at most once):");
            out.println("      " + a.discardUnconfirmed());
        }
    }
}
