package org.leasesync.server.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.store.SqlDatabase;

/**
 * The JSON of the admin job endpoints (docs/protocol.md §8, "Jobs"): the status of every job, and
 * the answer to a run request. Instants are ISO-8601 UTC, durations ISO-8601 plus milliseconds.
 * Stateless.
 */
public final class JobViews {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JobViews() {}

    static ObjectNode status(
            SqlDatabase db,
            JobStore store,
            TaskRegistry registry,
            List<Job<?>> jobs,
            JobSettings settings,
            String instanceId,
            Instant now,
            int runsPerJob) {
        ObjectNode body = NODES.objectNode();
        body.put("instanceId", instanceId);
        body.put("owner", registry.owner().asString());
        body.put("scheduled", settings.scheduled());
        body.put("leaseTtlMs", settings.leaseTtl().toMillis());
        ArrayNode out = body.putArray("jobs");
        for (Job<?> job : jobs) {
            Optional<LeaseRecord> lease = registry.lease(job.key());
            ObjectNode one = db.query("read the status of " + job.key(), c -> {
                ObjectNode n = NODES.objectNode();
                n.put("name", job.name());
                Optional<Duration> interval = settings.interval(job.name());
                n.put("interval", interval.map(Duration::toString).orElse("off"));
                if (interval.isPresent()) {
                    n.put("intervalMs", interval.get().toMillis());
                    n.put(
                            "currentSlot",
                            Math.floorDiv(now.toEpochMilli(), interval.get().toMillis()));
                } else {
                    n.putNull("intervalMs");
                    n.putNull("currentSlot");
                }
                Optional<JobStore.State> state = store.state(c, job.name());
                Long last = state.map(JobStore.State::lastCompletedSlot).orElse(null);
                putLong(n, "lastCompletedSlot", last);
                putInstant(
                        n,
                        "lastCompletedAt",
                        state.map(JobStore.State::lastCompletedAtMs).orElse(null));
                n.set("lease", lease(lease, state));
                // The runs before the checkpoint: each read sees what was committed when it ran (read
                // committed), and a run's end and its checkpoint's deletion commit together, so a run
                // read as ended is never shown beside its stale checkpoint. The other way round, a run
                // still "running" without a checkpoint, is only the moment of its end.
                var lastRuns = store.lastRuns(c, job.name(), runsPerJob);
                Optional<JobStore.Checkpoint> cp = store.checkpoint(c, job.name());
                n.set("checkpoint", cp.isPresent() ? checkpoint(cp.get()) : NODES.nullNode());
                ArrayNode runs = n.putArray("lastRuns");
                lastRuns.forEach(r -> runs.add(run(r)));
                return n;
            });
            out.add(one);
        }
        return body;
    }

    private static com.fasterxml.jackson.databind.JsonNode lease(
            Optional<LeaseRecord> lease, Optional<JobStore.State> state) {
        if (lease.isEmpty()) {
            return NODES.nullNode();
        }
        LeaseRecord r = lease.get();
        ObjectNode n = NODES.objectNode();
        n.put("held", r.isHeld());
        n.put("epoch", r.epoch());
        n.put("owner", r.ownerText());
        String instance = state.filter(s -> r.isHeld() && s.holderEpoch() != null && s.holderEpoch() == r.epoch())
                .map(JobStore.State::holderInstanceId)
                .orElse(null);
        n.put("instanceId", instance);
        if (r.isHeld()) {
            n.put("expiresAt", r.expiresAt().toString());
        }
        return n;
    }

    private static ObjectNode checkpoint(JobStore.Checkpoint cp) {
        ObjectNode n = NODES.objectNode();
        n.put("runId", cp.runId());
        putLong(n, "slot", cp.slot());
        n.set("position", JobJson.tree(cp.positionJson()));
        n.put("processed", cp.processed());
        n.put("epoch", cp.epoch());
        n.put("updatedAt", Instant.ofEpochMilli(cp.updatedAtMs()).toString());
        return n;
    }

    private static ObjectNode run(JobRun r) {
        ObjectNode n = NODES.objectNode();
        n.put("runId", r.runId());
        n.put("instanceId", r.instanceId());
        n.put("owner", r.ownerId());
        n.put("epoch", r.epoch());
        n.put("trigger", r.trigger().wire());
        putLong(n, "slot", r.slot());
        putLong(n, "resumedFrom", r.resumedFrom());
        n.put("startedAt", Instant.ofEpochMilli(r.startedAtMs()).toString());
        putInstant(n, "endedAt", r.endedAtMs());
        n.put("result", r.result().wire());
        n.put("processed", r.processed());
        n.put("detail", r.detail());
        return n;
    }

    /**
     * The body of a run request's answer: {@code {"outcome":"started", "runId", "trigger", "epoch",
     * "instanceId", "resumedFrom"}} or {@code {"outcome":"joined", "holder": {"owner", "instanceId",
     * "epoch"}, "run": {...} | null}}, both with {@code "job"}.
     */
    public static ObjectNode runRequest(RunRequest request) {
        ObjectNode n = NODES.objectNode();
        n.put("job", request.job());
        if (request instanceof RunRequest.Started s) {
            n.put("outcome", "started");
            n.put("runId", s.runId());
            n.put("trigger", s.trigger().wire());
            n.put("epoch", s.epoch());
            n.put("instanceId", s.instanceId());
            putLong(n, "resumedFrom", s.resumedFrom());
        } else if (request instanceof RunRequest.Joined j) {
            n.put("outcome", "joined");
            ObjectNode holder = n.putObject("holder");
            holder.put("owner", j.holderOwner());
            holder.put("instanceId", j.holderInstanceId());
            holder.put("epoch", j.epoch());
            n.set("run", j.running() == null ? NODES.nullNode() : run(j.running()));
        }
        return n;
    }

    /** A run request that found the job's lease held: who holds it, and its run under that epoch (if it began one). */
    static RunRequest.Joined joined(SqlDatabase db, JobStore store, TaskRegistry registry, Job<?> job) {
        Optional<LeaseRecord> row = registry.lease(job.key());
        String owner = row.map(LeaseRecord::ownerText).orElse(null);
        long epoch = row.map(LeaseRecord::epoch).orElse(0L);
        return db.query("read the holder of " + job.key(), c -> {
            String holder = store.state(c, job.name())
                    .filter(s -> s.holderEpoch() != null && s.holderEpoch() == epoch)
                    .map(JobStore.State::holderInstanceId)
                    .orElse(null);
            JobRun running = store.lastRuns(c, job.name(), 1).stream()
                    .filter(r -> r.epoch() == epoch && r.result() == JobResult.RUNNING)
                    .findFirst()
                    .orElse(null);
            return new RunRequest.Joined(job.name(), owner, holder, epoch, running);
        });
    }

    private static void putLong(ObjectNode n, String name, Long value) {
        if (value == null) {
            n.putNull(name);
        } else {
            n.put(name, value);
        }
    }

    private static void putInstant(ObjectNode n, String name, Long epochMs) {
        if (epochMs == null) {
            n.putNull(name);
        } else {
            n.put(name, Instant.ofEpochMilli(epochMs).toString());
        }
    }
}
