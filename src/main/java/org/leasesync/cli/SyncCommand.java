package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.StopSignals;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.h2.H2Messages;
import org.leasesync.sync.SyncSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync sync}: one trigger through the coordinator, with a signed-in account or a token
 * given for this run. Exit codes: 0 succeeded, 1 failed, 2 usage error, 3 joined a run that was
 * already running, 4 needs attention, 6 signed out (the server refused the session).
 */
@Command(
        name = "sync",
        mixinStandardHelpOptions = true,
        description = {
            "Run one sync of a task key (pull, then push the outbox) through the coordinator.",
            "Without --server: as the signed-in account (leasesync login; several: --user picks one).",
            "Exit codes: 0 succeeded; 1 failed; 2 usage error; 3 joined a run already running; 4 needs attention; "
                    + "6 signed out: the server no longer accepts the session (sign in again; local edits are kept)."
        })
public final class SyncCommand implements Callable<Integer>, WritesDataDir {

    static final int JOINED = 3;
    static final int NEEDS_ATTENTION = 4;
    /** The server refused the session (HTTP 401): the run stopped, the outbox is kept, the user signs in again. */
    static final int SIGNED_OUT = 6;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    RegistryOptions registryOptions;

    @Mixin
    HttpOptions httpOptions;

    @Mixin
    KeyOptions keyOptions;

    @Option(
            names = "--server",
            paramLabel = "URL[,URL...]",
            description = HttpOptions.SERVER_HELP + " Default: the signed-in account's.")
    String server;

    @Mixin
    TokenOptions tokenOptions;

    @Mixin
    TransportOptions transportOptions;

    @Option(
            names = "--source",
            defaultValue = "manual",
            description =
                    "Trigger source recorded with the run: schedule, foreground, manual, retry, recovery (default ${DEFAULT-VALUE}).")
    String source;

    @Option(
            names = "--check-again",
            description = "Re-check a key that needs attention (asks the server about the saved push).")
    boolean checkAgain;

    @Option(
            names = "--discard-unconfirmed",
            description =
                    "For a key that needs attention: give up confirming the "
                            + "unknown push and send its edits again under a new idempotency key (the server applies each change at most once).")
    boolean discardUnconfirmed;

    @Option(names = "--json", description = "Print one JSON object instead of a line.")
    boolean json;

    @Spec
    CommandSpec spec;

    private TaskKey key;
    private TaskSource src;
    private ClientConfig config;
    private ServerChoice.Chosen chosen;

    @Override
    public void validate() {
        chosen = ServerChoice.choose(
                dataDir.resolve(),
                server,
                keyOptions.user(),
                tokenOptions,
                transportOptions,
                System.getenv(),
                System.in);
        keyOptions.user = chosen.user();
        key = keyOptions.protocolKey();
        try {
            src = TaskSource.parse(source);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --source: " + e.getMessage());
        }
        if (checkAgain && discardUnconfirmed) {
            throw new IllegalArgumentException(
                    "--check-again and --discard-unconfirmed exclude each other: check again "
                            + "first; discard only if the server cannot tell what happened to the push");
        }
        // the account's token is read when the run starts (the keyring may have to ask for an unlock)
        config = new ClientConfig(
                dataDir.resolve(),
                chosen.servers(),
                Map.of(),
                registryOptions.leaseTtl(),
                httpOptions.settings(),
                SyncSettings.DEFAULT,
                RetryPolicy.NONE,
                TimeSource.system(),
                dataDir.openTimeout(),
                "leasesync sync",
                chosen.transport());
    }

    // "try": the signal handlers are held for the run, only their close is used (javac does not
    // honour the annotation on a resource whose initializer is a lambda)
    @SuppressWarnings("try")
    @Override
    public Integer call() throws InterruptedException {
        if (config == null) {
            try {
                validate();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        SyncReport says = new SyncReport(
                json, spec.commandLine().getErr(), dataDir.given(), config.dataDir(), chosen.account(), server);
        String token = chosen.token(org.leasesync.client.AccountService.forThisProcess(config.dataDir()));
        try (ClientRuntime rt = ClientRuntime.open(config.withTokens(Map.of(key.userId(), token)));
                StopSignals onSignal = StopSignals.install(() -> stopOnSignal(rt))) {
            SubmitResult r = submit(rt, new TriggerRequest(key, src, false, checkAgain, discardUnconfirmed), out);
            for (int attempt = 1;
                    attempt < 4 && r instanceof SubmitResult.Started s0 && localDatabaseHiccup(s0);
                    attempt++) {
                // The shared local database moved to another process mid-run: the run is safe to repeat
                // (pulls are idempotent; a push in flight is settled by querying its key first).
                Thread.sleep(300L * attempt);
                r = submit(rt, new TriggerRequest(key, src, false, checkAgain, discardUnconfirmed), out);
            }
            if (r instanceof SubmitResult.Started s) {
                RunResult result;
                try {
                    result = s.handle().completion().get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the run failed unexpectedly: " + e.getCause(), e.getCause());
                }
                int code = says.report(out, rt, key, result);
                out.flush();
                reported.countDown(); // a clean stop on a signal waits for this line before the JVM exits
                says.outboxNotes(out, rt, key, result);
                return code;
            }
            if (r instanceof SubmitResult.Joined j) {
                return says.joined(out, key, j.running());
            }
            if (r instanceof SubmitResult.FollowUpQueued f) {
                return says.joined(out, key, f.running());
            }
            if (r instanceof SubmitResult.NeedsAttention n) {
                return says.needsAttention(
                        out, rt, key, n.run().map(RunRecord::runId).orElse(null), n.reason());
            }
            if (r instanceof SubmitResult.Waiting w) {
                return says.waiting(out, key, w);
            }
            SubmitResult.Skipped sk = (SubmitResult.Skipped) r;
            says.print(out, key, "skipped", null, sk.reason(), key + " skipped: " + sk.reason());
            return 0;
        }
    }

    /**
     * Submits. A joined run whose holder renewed within its TTL by this machine's clock is reported at
     * once. Otherwise wall time cannot tell a holder that stopped renewing (alive but stuck, e.g.
     * stopped with {@code SIGSTOP}, or on another machine) from one whose clock — or this one — is
     * hours off or was stepped: the lease row's heartbeat is watched on this process's monotonic clock.
     * A heartbeat that moves (the holder renews every TTL/3) means a live holder: joined. One that
     * stays unchanged for half a TTL is announced as stopped, and after a whole TTL the key is asked
     * for again, which takes it over (the registry's own rule, also on the monotonic clock).
     */
    private SubmitResult submit(ClientRuntime rt, TriggerRequest request, PrintWriter out) throws InterruptedException {
        SubmitResult r = submitRetryingBrokenConnections(rt, request);
        if (!(r instanceof SubmitResult.Joined)) {
            return r;
        }
        TimeSource time = rt.config().time();
        var first = rt.registry().lease(request.key());
        if (first.isEmpty() || !first.get().isHeld() || first.get().renewedRecentlyBy(time.now())) {
            return r; // a holder that renews by this machine's clock: joined
        }
        long ttlNanos = first.get().ttl().toNanos();
        long start = time.monotonicNanos();
        boolean announced = false;
        while (time.monotonicNanos() - start < ttlNanos + 1_000_000_000L) {
            Thread.sleep(250);
            var now = rt.registry().lease(request.key());
            if (now.isEmpty()
                    || !now.get().isHeld()
                    || now.get().epoch() != first.get().epoch()
                    || now.get().heartbeat() != first.get().heartbeat()) {
                break; // it renewed, released, or someone else took it: ask again below
            }
            if (!announced && !json && time.monotonicNanos() - start >= ttlNanos / 2) {
                announced = true;
                out.println("the run holding " + request.key() + " stopped renewing its lease; waiting up to "
                        + DurationConverter.format(first.get().ttl()) + " to be sure before taking over…");
                out.flush();
            }
        }
        return submitRetryingBrokenConnections(rt, request); // takes over if nothing moved for a TTL
    }

    /**
     * SIGTERM or Ctrl-C while the run is going: cancel it (it records "cancelled" and releases its
     * lease; an unconfirmed push is settled by the next run, which asks the server first), close the
     * database, and say so — on stderr and in the log file.
     */
    private void stopOnSignal(ClientRuntime rt) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(
                "leasesync: stopping (SIGTERM or Ctrl-C): cancelling the sync of " + key + " and releasing its lease");
        err.flush();
        LOG.info("stopping on a signal: cancelling the sync of {}", key);
        rt.close(java.time.Duration.ofSeconds(3));
        try {
            // the main thread reports the cancelled run on standard output; exiting first would lose that line
            reported.await(REPORT_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        err.println("leasesync: stopped cleanly");
        err.flush();
        LOG.info("stopped cleanly");
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SyncCommand.class);
    /** How long a clean stop waits for the run's result line once the run has been cancelled. */
    private static final long REPORT_WAIT_MILLIS = 2_000;
    /** Counted down once the started run's result has been printed. */
    private final java.util.concurrent.CountDownLatch reported = new java.util.concurrent.CountDownLatch(1);

    /** Waits for the run; true if it failed only because the shared local database was briefly unreachable. */
    private static boolean localDatabaseHiccup(SubmitResult.Started started) throws InterruptedException {
        try {
            RunResult result = started.handle().completion().get();
            return result.status() == RunStatus.FAILED
                    && H2Messages.isHandover(result.message().orElse(""));
        } catch (ExecutionException e) {
            return false;
        }
    }

    /** A connection to the shared database can break when its host process exits; try again briefly. */
    private static SubmitResult submitRetryingBrokenConnections(ClientRuntime rt, TriggerRequest request)
            throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return rt.coordinator().submit(request);
            } catch (org.leasesync.lease.StoreException e) {
                if (!H2Messages.isHandover(e.getMessage()) || attempt >= 5) {
                    throw e;
                }
                Thread.sleep(200L * attempt);
            }
        }
    }

    /** Exit code of a sync the server asked to wait for ({@code Retry-After}); the same as login's. */
    static final int EXIT_SERVER_WAIT = 7;
}
