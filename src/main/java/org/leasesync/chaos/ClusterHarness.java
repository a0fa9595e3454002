package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.leasesync.server.jobs.JobRun;

/**
 * The cluster harness ({@code leasesync cluster}, run by {@code scale/cluster.sh}): N server
 * instances on one PostgreSQL database and several client devices that know every instance, under
 * seeded faults — racing syncs, edits and deletions of two users from every device,
 * {@code drop-after-apply}, {@code kill -9} of an instance mid-push or mid-job and its restart, and
 * network faults between instances, the database and the clients ({@link ClusterFaults}) — while
 * the server's own jobs run often and are disturbed ({@link ClusterJobs}). After the rounds it drains
 * (every fault lifted, every key on every device settled), stops the instances and checks the
 * server's audit, every server job run (read from the database) and every device's database
 * ({@link ClusterReport}).
 *
 * <p>Devices: {@code device-a} has two client processes on one data directory, {@code device-b}
 * and {@code device-c} one each; device {@code i} is given the instance URLs rotated by {@code i}
 * (device-a prefers instance 1, device-b instance 2, ...).
 *
 * <p>Not thread-safe: one run per instance, driven from the calling thread. Blocks.
 */
final class ClusterHarness {

    /**
     * @param rounds rounds of workload and faults, at least 1
     * @param seed the random seed (same seed, same schedule of actions)
     * @param instances where each server instance runs (2..9)
     * @param clientPrefix the command prefix that starts a client process (e.g. in the clients' network namespace)
     * @param dbUrl the shared database, {@code jdbc:postgresql://...}
     * @param dbEnv {@code LEASESYNC_DB_USER} and {@code LEASESYNC_DB_PASSWORD} for the instances and the claim probe
     * @param network how network faults are made
     * @param workDir where data, journals and logs go
     * @param leaseTtl the clients' lease TTL
     * @param callTimeout the clients' HTTP call timeout (below 90% of the TTL)
     * @param javaCommand this program in a child JVM
     * @param progress where progress lines go
     */
    record Settings(
            int rounds,
            long seed,
            List<ServerInstances.Spec> instances,
            List<String> clientPrefix,
            String dbUrl,
            Map<String, String> dbEnv,
            NetworkFaults network,
            Path workDir,
            Duration leaseTtl,
            Duration callTimeout,
            List<String> javaCommand,
            PrintStream progress) {

        Settings {
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
            }
            if (instances.size() < 2 || instances.size() > 9) {
                throw new IllegalArgumentException("a cluster needs 2..9 instances, got " + instances.size());
            }
            if (!dbEnv.containsKey("LEASESYNC_DB_USER")) {
                throw new IllegalArgumentException(
                        "LEASESYNC_DB_USER is not set: the instances need the database user");
            }
            new ClusterDatabase(dbUrl, dbEnv.get("LEASESYNC_DB_USER"), dbEnv.get("LEASESYNC_DB_PASSWORD")); // validates
            instances = List.copyOf(instances);
            clientPrefix = List.copyOf(clientPrefix);
            dbEnv = Map.copyOf(dbEnv);
            javaCommand = List.copyOf(javaCommand);
        }

        /** The shared database as the harness reaches it (the instances' credentials). */
        ClusterDatabase database() {
            return new ClusterDatabase(dbUrl, dbEnv.get("LEASESYNC_DB_USER"), dbEnv.get("LEASESYNC_DB_PASSWORD"));
        }
    }

    private final Settings s;
    private final Random rnd;
    private final ScheduledExecutorService background = Executors.newScheduledThreadPool(3, r -> {
        Thread t = new Thread(r, "cluster-harness");
        t.setDaemon(true);
        return t;
    });
    private ClientFleet fleet;
    private int editCounter;

    ClusterHarness(Settings settings) {
        this.s = settings;
        this.rnd = new Random(settings.seed());
    }

    /** Runs the whole experiment and checks it. Blocks for the length of the run. */
    ClusterReport run() throws IOException, InterruptedException {
        Files.createDirectories(s.workDir().resolve("journals"));
        Path logs = Files.createDirectories(s.workDir().resolve("logs"));
        ClusterJobs jobs = ClusterJobs.forRounds(s.rounds());
        s.progress().println("cluster: " + jobs.describe());
        ServerInstances instances =
                new ServerInstances(s.instances(), s.javaCommand(), s.dbUrl(), s.dbEnv(), logs, jobs::serveArgs);
        ClusterDatabase db = s.database();
        try (Journal journal = new Journal(s.workDir().resolve("journals").resolve("harness.jsonl"))) {
            try {
                instances.startAll();
                journal.write(journal.event("cluster-start"));
                fleet = new ClientFleet(
                        devices(instances.urls()),
                        s.clientPrefix(),
                        s.javaCommand(),
                        Map.of("alice", instances.token("alice"), "bob", instances.token("bob")),
                        s.workDir(),
                        s.leaseTtl(),
                        s.callTimeout(),
                        s.progress());
                fleet.startAll(Duration.ofSeconds(180));
                ClusterFaults faults = new ClusterFaults(
                        instances, s.network(), new ClaimProbe(db), journal, rnd, background, s.progress());
                rounds(journal, faults);
                s.progress().println("cluster: draining (" + faults.describe() + ")");
                journal.write(journal.event("drain"));
                faults.drain();
                List<String> unsettled = fleet.settleAll(ChaosHarness.USERS, ChaosHarness.SCOPES);
                fleet.quitAll();
                List<JsonNode> audit = readAudit(instances);
                instances.stopAll(); // a run paused by --job-pause ends now (interrupted): the job history is final
                return check(
                        audit,
                        readJobRuns(db),
                        new ClusterReport.Counts(instances.count(), s.rounds(), faults.kills(), faults.partitions()),
                        unsettled);
            } finally {
                background.shutdownNow();
                if (fleet != null) {
                    fleet.killAll();
                }
                instances.stopAll();
            }
        }
    }

    private void rounds(Journal journal, ClusterFaults faults) throws InterruptedException {
        for (int round = 1; round <= s.rounds(); round++) {
            ObjectNode r = journal.event("round");
            r.put("round", round);
            journal.write(r);
            race();
            int actions = 1 + rnd.nextInt(3);
            for (int a = 0; a < actions; a++) {
                int dice = rnd.nextInt(100);
                if (dice < 30) {
                    int n = 1 + rnd.nextInt(3);
                    int slot = fleet.pickSlot(rnd);
                    for (int i = 0; i < n; i++) {
                        edit(slot);
                    }
                } else if (dice < 55) {
                    storm(fleet.pickSlot(rnd), 2 + rnd.nextInt(4));
                    storm(fleet.pickSlot(rnd), 1 + rnd.nextInt(3));
                } else if (dice < 65) {
                    faults.dropAfterApply();
                } else if (dice < 75) {
                    faults.killMidWork(this::everyDeviceEditsAndSyncs);
                } else {
                    faults.partition();
                }
            }
            Thread.sleep(150 + rnd.nextInt(450));
            if (round % 25 == 0 || round == s.rounds()) {
                s.progress().printf("cluster: round %d/%d %s%n", round, s.rounds(), faults.describe());
            }
        }
    }

    /** Two processes (often of two devices) sync the same key at once, each from 1–4 threads. */
    private void race() {
        String user = pick(ChaosHarness.USERS);
        String scope = pick(ChaosHarness.SCOPES);
        for (int i = 0; i < 2; i++) {
            fleet.send(
                    fleet.pickSlot(rnd),
                    cmd("trigger")
                            .put("user", user)
                            .put("scope", scope)
                            .put("source", "mixed")
                            .put("threads", 1 + rnd.nextInt(4)));
        }
    }

    /** For a kill mid-push: an edit and a sync on every process, so that pushes are on their way everywhere. */
    private void everyDeviceEditsAndSyncs() {
        String user = pick(ChaosHarness.USERS);
        String scope = pick(ChaosHarness.SCOPES);
        for (int slot = 0; slot < fleet.slots(); slot++) {
            fleet.send(
                    slot,
                    cmd("edit")
                            .put("user", user)
                            .put("scope", scope)
                            .put("record", "r" + rnd.nextInt(4))
                            .put("n", ++editCounter));
            fleet.send(
                    slot,
                    cmd("trigger")
                            .put("user", user)
                            .put("scope", scope)
                            .put("source", "mixed")
                            .put("threads", 2));
        }
    }

    /** One local edit; one in four deletes its record (so that purge-tombstones has tombstones to purge). */
    private void edit(int slot) {
        fleet.send(
                slot,
                cmd("edit")
                        .put("user", pick(ChaosHarness.USERS))
                        .put("scope", pick(ChaosHarness.SCOPES))
                        .put("record", "r" + rnd.nextInt(4))
                        .put("n", ++editCounter)
                        .put("delete", rnd.nextInt(4) == 0));
    }

    private void storm(int slot, int threads) {
        fleet.send(
                slot,
                cmd("trigger")
                        .put("user", pick(ChaosHarness.USERS))
                        .put("scope", pick(ChaosHarness.SCOPES))
                        .put("source", "mixed")
                        .put("threads", threads));
    }

    /** The server's audit, from the first instance that answers. */
    private static List<JsonNode> readAudit(ServerInstances instances) throws IOException {
        IOException last = null;
        for (int k = 1; k <= instances.count(); k++) {
            try {
                return instances.admin(k).audit();
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IOException("no instance answered the audit: " + last.getMessage(), last);
    }

    /** Every server job run, from the database (the admin API shows only the last ones). */
    private static List<JobRun> readJobRuns(ClusterDatabase db) throws IOException {
        try (Connection c = db.connect(Duration.ofSeconds(30))) {
            return JobRunCheck.read(c);
        } catch (SQLException e) {
            throw new IOException(
                    "the server's job runs could not be read from " + db.jdbcUrl() + " (job_runs): " + e.getMessage(),
                    e);
        }
    }

    private ClusterReport check(
            List<JsonNode> audit, List<JobRun> jobRuns, ClusterReport.Counts counts, List<String> unsettled)
            throws IOException {
        List<String> lines = audit.stream().map(JsonNode::toString).toList();
        Files.write(s.workDir().resolve("audit.jsonl"), lines, StandardCharsets.UTF_8);
        Files.write(
                s.workDir().resolve("job-runs.txt"),
                jobRuns.stream().map(JobRunCheck::describe).toList(),
                StandardCharsets.UTF_8);
        Evidence ev = new Evidence(
                JournalFiles.readAll(s.workDir().resolve("journals")),
                audit,
                fleet.evidence(),
                Map.of(),
                s.leaseTtl(),
                s.leaseTtl());
        s.progress().println("cluster: " + AuditSummary.of(audit));
        return ClusterReport.check(ev, jobRuns, counts, unsettled);
    }

    /** device-a (two processes), device-b and device-c; device i gets the URLs rotated by i. */
    static List<ClientFleet.Device> devices(List<String> urls) {
        List<ClientFleet.Device> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<String> order = new ArrayList<>();
            for (int j = 0; j < urls.size(); j++) {
                order.add(urls.get((i + j) % urls.size()));
            }
            out.add(new ClientFleet.Device("device-" + (char) ('a' + i), i == 0 ? 2 : 1, order));
        }
        return out;
    }

    private <T> T pick(List<T> list) {
        return list.get(rnd.nextInt(list.size()));
    }

    private static ObjectNode cmd(String name) {
        return Journal.JSON.createObjectNode().put("cmd", name);
    }
}
