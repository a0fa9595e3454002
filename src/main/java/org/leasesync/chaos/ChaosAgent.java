package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunEvent;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;

/**
 * One client process under chaos: a full client runtime on the shared data directory, with every
 * lease grant, guarded write and run event journaled, crash points armed on request, and a wall
 * clock the harness can jump. It takes one JSON command per line on standard input and answers
 * each with one JSON line on standard output ({@code {"id":N,"ok":true,...}}); a crash point that
 * fires prints {@code {"type":"hit",...}} and parks until the harness kills the process.
 *
 * <p>Commands ({@code cmd}): {@code trigger} (user, scope, source or "mixed", threads), {@code edit}
 * (user, scope, record, n; {@code "delete":true} deletes the record), {@code switch} (user: cancels
 * the other accounts' runs here, as the window's account switcher does), {@code cancel} (user,
 * scope), {@code jump} (millis), {@code arm} (point), {@code disarm}, {@code settle} (user, scope,
 * timeoutMs), {@code quit}.
 *
 * <p>Commands run concurrently on their own threads, except {@code arm}, {@code disarm} and
 * {@code release}, which take effect in the order they were sent; answers are written whole, one per line.
 */
final class ChaosAgent {

    private static final TaskSource[] SOURCES = TaskSource.values();
    /**
     * The crash-point commands, handled on the reader thread in the order they were sent: on the pool
     * a drain's {@code disarm} could run before the {@code arm} written just before it, leaving a point
     * armed that then fires during the final settle and gets the process killed with runs in flight.
     */
    private static final java.util.Set<String> IN_ORDER = java.util.Set.of("arm", "disarm", "release");

    private final ClientRuntime rt;
    private final Journal journal;
    private final JumpableTime time;
    private final CrashPoints points;
    private final PrintStream out;
    private final ExecutorService commands = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "chaos-command");
        t.setDaemon(true);
        return t;
    });

    private ChaosAgent(ClientRuntime rt, Journal journal, JumpableTime time, CrashPoints points, PrintStream out) {
        this.rt = rt;
        this.journal = journal;
        this.time = time;
        this.points = points;
        this.out = out;
    }

    /**
     * Opens the runtime on {@code config} (whose time source must be {@code time}), then serves
     * commands from standard input until {@code quit} or end of input. Blocks.
     *
     * @return the process exit code
     */
    static int serve(ClientConfig config, JumpableTime time, Journal journal, PrintStream out) throws IOException {
        CrashPoints points = new CrashPoints(journal, hit -> {
            synchronized (out) {
                out.println(hit.toString());
                out.flush();
            }
        });
        org.leasesync.client.ExitOnFatalError onFatal = org.leasesync.client.ExitOnFatalError.forThisProcess();
        ClientRuntime rt = ClientRuntime.open(
                config,
                org.leasesync.store.LocalStore.openFile(config.dataDir(), config.dbOpenTimeout()),
                new ClientRuntime.Ports(
                        leases -> new JournalingLeaseStore(leases, journal),
                        remote -> new JournalingRemote(remote, points),
                        local -> new JournalingLocalData(local, journal, points)),
                onFatal);
        onFatal.closing(rt);
        ChaosAgent agent = new ChaosAgent(rt, journal, time, points, out);
        rt.coordinator().addListener(agent::journalRunEvent);
        ObjectNode ready = journal.event("agent-ready");
        journal.write(ready);
        agent.send(ready);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode cmd = Journal.JSON.readTree(line);
            if ("quit".equals(cmd.path("cmd").asText())) {
                rt.close(java.time.Duration.ofSeconds(5));
                ObjectNode r = reply(cmd);
                agent.send(r);
                journal.write(journal.event("agent-quit"));
                return 0;
            }
            if (IN_ORDER.contains(cmd.path("cmd").asText())) {
                agent.handle(cmd); // never blocks; must not overtake nor be overtaken
            } else {
                agent.commands.execute(() -> agent.handle(cmd));
            }
        }
        rt.close(java.time.Duration.ofSeconds(5));
        return 0;
    }

    private void handle(JsonNode cmd) {
        ObjectNode r = reply(cmd);
        try {
            switch (cmd.path("cmd").asText()) {
                case "trigger" -> trigger(cmd, r);
                case "edit" -> edit(cmd, r);
                case "switch" -> switchAccount(cmd, r);
                case "cancel" -> r.put("cancelled", rt.coordinator().cancel(key(cmd), "cancelled by the user"));
                case "jump" -> {
                    time.jump(java.time.Duration.ofMillis(cmd.path("millis").asLong()));
                    ObjectNode e = journal.event("clock-jump");
                    e.put("millis", cmd.path("millis").asLong());
                    e.put("offsetMillis", time.offset().toMillis());
                    journal.write(e);
                }
                case "arm" ->
                    points.arm(cmd.path("point").asText(), cmd.path("pause").asBoolean(false));
                case "release" -> points.release();
                case "disarm" -> points.disarm();
                case "settle" -> settle(cmd, r);
                default -> throw new IllegalArgumentException("unknown command " + cmd.path("cmd"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r.put("ok", false).put("error", "interrupted");
        } catch (RuntimeException e) {
            r.put("ok", false).put("error", String.valueOf(e.getMessage()));
        }
        send(r);
    }

    private void trigger(JsonNode cmd, ObjectNode r) throws InterruptedException {
        TaskKey key = key(cmd);
        String source = cmd.path("source").asText("mixed");
        int threads = Math.max(1, cmd.path("threads").asInt(1));
        List<CompletableFuture<String>> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            TaskSource s = "mixed".equals(source) ? SOURCES[i % SOURCES.length] : TaskSource.parse(source);
            all.add(CompletableFuture.supplyAsync(
                    () -> kind(rt.coordinator().submit(TriggerRequest.of(key, s))), commands));
        }
        ArrayNode results = r.putArray("results");
        for (CompletableFuture<String> f : all) {
            try {
                results.add(f.get(60, TimeUnit.SECONDS));
            } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                results.add("error: " + (e.getCause() == null ? e : e.getCause()).getMessage());
            }
        }
    }

    private void edit(JsonNode cmd, ObjectNode r) {
        TaskKey key = key(cmd);
        ObjectNode payload = Journal.JSON.createObjectNode();
        payload.put("owner", key.userId());
        payload.put("n", cmd.path("n").asLong());
        payload.put("by", ProcessHandle.current().pid());
        boolean delete = cmd.path("delete").asBoolean(false);
        String changeId = rt.edits().addEdit(key, cmd.path("record").asText(), payload.toString(), delete);
        ObjectNode e = journal.event("edit");
        e.put("key", key.asString());
        e.put("record", cmd.path("record").asText());
        e.put("changeId", changeId);
        if (delete) {
            e.put("delete", true);
        }
        journal.write(e);
        r.put("changeId", changeId);
    }

    private void switchAccount(JsonNode cmd, ObjectNode r) {
        String to = cmd.path("user").asText();
        int cancelled = 0;
        for (String other : List.of("alice", "bob")) {
            if (!other.equals(to)) {
                cancelled += rt.coordinator().cancelUser(other, "the user switched to account " + to);
            }
        }
        ObjectNode e = journal.event("account-switch");
        e.put("to", to);
        e.put("cancelled", cancelled);
        journal.write(e);
        r.put("cancelled", cancelled);
    }

    /**
     * Runs the key until its last run succeeded and its outbox holds nothing sendable, asking again
     * ("Check again") when it needs attention; gives up at the timeout.
     */
    private void settle(JsonNode cmd, ObjectNode r) throws InterruptedException {
        TaskKey key = key(cmd);
        org.leasesync.store.JdbcLocalData eligible =
                new org.leasesync.store.JdbcLocalData(rt.store().database(), time);
        long deadline = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(cmd.path("timeoutMs").asLong(60_000));
        int attempts = 0;
        String last = "none";
        while (System.nanoTime() < deadline) {
            attempts++;
            Optional<RunRecord> lastRun = rt.store().history().lastRun(key);
            boolean attention = lastRun.flatMap(RunRecord::status).orElse(null) == RunStatus.NEEDS_ATTENTION;
            SubmitResult s = rt.coordinator().submit(new TriggerRequest(key, TaskSource.MANUAL, false, attention));
            last = kind(s);
            if (s instanceof SubmitResult.Started started) {
                try {
                    RunResult result = started.handle().completion().get(60, TimeUnit.SECONDS);
                    last = result.status().wireName()
                            + result.message().map(m -> ": " + m).orElse("");
                    // Entries queued behind an edit in conflict wait for the user, not for another run.
                    boolean sendable = !eligible.pendingOutbox(key, 1).isEmpty();
                    if (result.status() == RunStatus.SUCCEEDED && !sendable) {
                        r.put("settled", true);
                        break;
                    }
                } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                    last = "error: " + e;
                }
            }
            Thread.sleep(200);
        }
        r.put("attempts", attempts);
        r.put("last", last);
        r.put(
                "pending",
                rt.edits().outbox(key).stream().filter(i -> !i.isConflict()).count());
        r.put(
                "conflicts",
                rt.edits().outbox(key).stream().filter(i -> i.isConflict()).count());
    }

    private void journalRunEvent(RunEvent ev) {
        String type = switch (ev.kind()) {
            case STARTED -> "run-started";
            case FINISHED -> "run-finished";
            case JOINED -> "joined";
            case NEEDS_ATTENTION -> "needs-attention";
            default -> null;
        };
        if (type == null) {
            return;
        }
        ObjectNode e = journal.event(type);
        e.put("key", ev.key().asString());
        ev.run().ifPresent(v -> {
            e.put("run", v.runId());
            e.put("epoch", v.epoch());
            e.put("owner", v.owner());
            e.put("local", v.local());
        });
        ev.source().ifPresent(s -> e.put("source", s.wireName()));
        ev.result().ifPresent(res -> e.put("status", res.status().wireName()));
        ev.message().ifPresent(m -> e.put("message", m));
        journal.write(e);
    }

    private static String kind(SubmitResult s) {
        if (s instanceof SubmitResult.Started) {
            return "started";
        }
        if (s instanceof SubmitResult.Joined j) {
            return j.running().local() ? "joined" : "joined-elsewhere";
        }
        if (s instanceof SubmitResult.FollowUpQueued) {
            return "follow-up";
        }
        if (s instanceof SubmitResult.NeedsAttention) {
            return "needs-attention";
        }
        return "skipped";
    }

    private static TaskKey key(JsonNode cmd) {
        return TaskKey.parse(cmd.path("user").asText() + "|" + cmd.path("scope").asText());
    }

    private static ObjectNode reply(JsonNode cmd) {
        ObjectNode r = Journal.JSON.createObjectNode();
        r.put("type", "reply");
        r.put("id", cmd.path("id").asLong());
        r.put("ok", true);
        return r;
    }

    private void send(ObjectNode message) {
        synchronized (out) {
            out.println(message.toString());
            out.flush();
        }
    }
}
