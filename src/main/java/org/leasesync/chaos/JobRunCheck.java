package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code job_double_runs} counter of a cluster run: the server's own periodic jobs (expire
 * idempotency keys, prune the audit, purge tombstones) must run each occurrence once across all
 * instances, and never two runs of one job at the same time. A violation is
 * <ol>
 *   <li>an occurrence of a job completed more than once, or</li>
 *   <li>two runs of one job whose lease intervals ({@code [leaseStartMs, leaseEndMs)}, a run still
 *       holding its lease ending never) overlap.</li>
 * </ol>
 *
 * <p>The job-run record is read from {@code GET /v1/admin/jobs}; {@link #parse} is the one place
 * that knows its shape (to be wired when the server's jobs land):
 * {@code {"runs":[{"job":"expire-keys","occurrence":"…","instanceId":"…","leaseStartMs":1,"leaseEndMs":2|null,
 * "status":"completed|running|failed"}]}}. A server without that endpoint ({@code 404}) has no jobs:
 * the counter is 0 with the note {@link #NO_JOBS}. Stateless; thread-safe.
 */
final class JobRunCheck {

    static final String NO_JOBS = "no server jobs on this build";

    /** One run of a server job, as the job-run record shows it. */
    record JobRun(String job, String occurrence, String instanceId, long leaseStartMs, long leaseEndMs, boolean completed) {
        JobRun {
            if (leaseEndMs < leaseStartMs) {
                throw new IllegalArgumentException("job run of " + job + " ends (" + leaseEndMs + ") before it starts ("
                        + leaseStartMs + ")");
            }
        }

        @Override
        public String toString() {
            return job + " occurrence " + occurrence + " on " + instanceId + " lease [" + leaseStartMs + ", "
                    + (leaseEndMs == Long.MAX_VALUE ? "held" : String.valueOf(leaseEndMs)) + ")"
                    + (completed ? " completed" : "");
        }
    }

    /**
     * @param violations one per double run, with the runs that show it
     * @param note what was checked (e.g. {@link #NO_JOBS}, or how many runs)
     */
    record Result(List<ChaosReport.Violation> violations, String note) {
        Result {
            violations = List.copyOf(violations);
        }
    }

    private JobRunCheck() {
    }

    /** Checks the answer of {@code GET /v1/admin/jobs}; empty = the endpoint does not exist on this build. */
    static Result check(Optional<JsonNode> jobsAnswer) {
        if (jobsAnswer.isEmpty()) {
            return new Result(List.of(), NO_JOBS);
        }
        List<JobRun> runs = parse(jobsAnswer.get());
        return new Result(doubleRuns(runs), runs.size() + " server job runs checked");
    }

    /** The runs in an answer of {@code GET /v1/admin/jobs} (shape in the class comment). */
    static List<JobRun> parse(JsonNode answer) {
        List<JobRun> runs = new ArrayList<>();
        for (JsonNode r : answer.path("runs")) {
            JsonNode end = r.path("leaseEndMs");
            runs.add(new JobRun(r.path("job").asText(), r.path("occurrence").asText(), r.path("instanceId").asText(),
                    r.path("leaseStartMs").asLong(), end.isNumber() ? end.asLong() : Long.MAX_VALUE,
                    "completed".equals(r.path("status").asText())));
        }
        return runs;
    }

    /** Every double run among {@code runs}. */
    static List<ChaosReport.Violation> doubleRuns(List<JobRun> runs) {
        List<ChaosReport.Violation> out = new ArrayList<>();
        Map<String, List<JobRun>> completions = new HashMap<>();
        for (JobRun r : runs) {
            if (r.completed()) {
                completions.computeIfAbsent(r.job() + " occurrence " + r.occurrence(), k -> new ArrayList<>()).add(r);
            }
        }
        completions.forEach((occurrence, done) -> {
            if (done.size() > 1) {
                out.add(new ChaosReport.Violation("job_double_runs", "job " + occurrence + " completed " + done.size()
                        + " times", done.stream().map(JobRun::toString).toList()));
            }
        });
        for (int i = 0; i < runs.size(); i++) {
            for (int j = i + 1; j < runs.size(); j++) {
                JobRun a = runs.get(i);
                JobRun b = runs.get(j);
                if (a.job().equals(b.job()) && a.leaseStartMs() < b.leaseEndMs() && b.leaseStartMs() < a.leaseEndMs()) {
                    out.add(new ChaosReport.Violation("job_double_runs", "two runs of job " + a.job()
                            + " held their leases at the same time", List.of(a.toString(), b.toString())));
                }
            }
        }
        return out;
    }
}
