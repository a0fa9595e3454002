package org.leasesync.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Reading the admin job view over HTTP in server tests. */
final class JobsTestSupport {

    private JobsTestSupport() {}

    /** The job's entry of {@code GET /v1/admin/jobs}. */
    static JsonNode job(TestClient client, String name) throws IOException {
        TestClient.Resp r = client.adminJobs();
        if (r.status() != 200) {
            throw new AssertionError("GET /v1/admin/jobs answered " + r.status() + ": " + r.body());
        }
        for (JsonNode j : r.json().get("jobs")) {
            if (j.get("name").asText().equals(name)) {
                return j;
            }
        }
        throw new AssertionError("no job " + name + " in " + r.body());
    }

    /** Polls the job's entry (every 20 ms, at most 30 s) until {@code condition} holds for it. */
    static JsonNode awaitJob(TestClient client, String name, Predicate<JsonNode> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = job(client, name);
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("job " + name + " did not reach the expected state within 30 s; last: " + last);
    }

    /** True once the job's newest run is {@code ok} and is run {@code runId}. */
    static Predicate<JsonNode> finished(long runId) {
        return j -> j.get("lastRuns").size() > 0
                && j.get("lastRuns").get(0).get("runId").asLong() == runId
                && j.get("lastRuns").get(0).get("result").asText().equals("ok");
    }

    /** Runs the job now through the admin endpoint and waits until it ended ok; returns its run entry. */
    static JsonNode runAndAwait(TestClient client, String name) throws Exception {
        TestClient.Resp r = client.runJob(name);
        if (r.status() != 202) {
            throw new AssertionError("POST run of " + name + " answered " + r.status() + ": " + r.body());
        }
        long runId = r.json().get("runId").asLong();
        return awaitJob(client, name, finished(runId)).get("lastRuns").get(0);
    }
}
