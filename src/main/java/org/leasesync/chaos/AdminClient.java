package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The harness's HTTP client for the reference server: fault switches and the request audit (admin
 * token), and a user's final records. Thread-safe; every call blocks.
 */
final class AdminClient {

    private static final MediaType JSON_TYPE = MediaType.get("application/json");

    private final String baseUrl;
    private final String adminToken;
    private final OkHttpClient http = new OkHttpClient.Builder()
            .connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(30))
            .build();

    AdminClient(String baseUrl, String adminToken) {
        this.baseUrl = baseUrl;
        this.adminToken = adminToken;
    }

    /** {@code PUT /v1/admin/faults} with the given settings (others unchanged). */
    void setFaults(ObjectNode settings) throws IOException {
        Request req = new Request.Builder()
                .url(baseUrl + "/v1/admin/faults")
                .header("Authorization", "Bearer " + adminToken)
                .put(RequestBody.create(settings.toString(), JSON_TYPE))
                .build();
        call(req);
    }

    void clearFaults() throws IOException {
        setFaults(Journal.JSON
                .createObjectNode()
                .put("latencyMs", 0)
                .put("failPush", 0)
                .put("dropAfterApply", 0)
                .put("delayAfterApplyMs", 0)
                .put("throttle", 0));
    }

    /** Every audit entry, in seq order ({@code GET /v1/admin/audit}, paged). */
    List<JsonNode> audit() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        long after = 0;
        while (true) {
            HttpUrl url = HttpUrl.get(baseUrl + "/v1/admin/audit")
                    .newBuilder()
                    .addQueryParameter("after", String.valueOf(after))
                    .addQueryParameter("limit", "5000")
                    .build();
            JsonNode page = call(new Request.Builder()
                    .url(url)
                    .header("Authorization", "Bearer " + adminToken)
                    .build());
            for (JsonNode e : page.path("entries")) {
                all.add(e);
                after = e.path("seq").asLong();
            }
            if (!page.path("hasMore").asBoolean()) {
                return all;
            }
        }
    }

    /** The user's current records of a scope (pulled from the start). */
    List<JsonNode> records(String base, String userToken, String user, String scope) throws IOException {
        List<JsonNode> all = new ArrayList<>();
        String cursor = null;
        while (true) {
            HttpUrl.Builder url = HttpUrl.get(base + "/v1/users/" + user + "/scopes/" + scope + "/changes")
                    .newBuilder()
                    .addQueryParameter("limit", "1000");
            if (cursor != null) {
                url.addQueryParameter("since", cursor);
            }
            JsonNode page = call(new Request.Builder()
                    .url(url.build())
                    .header("Authorization", "Bearer " + userToken)
                    .build());
            page.path("changes").forEach(all::add);
            cursor = page.path("nextCursor").asText();
            if (!page.path("hasMore").asBoolean()) {
                return all;
            }
        }
    }

    /** {@code GET /health} (no token): the instance's id; an IOException when it does not answer 200. */
    String instanceId() throws IOException {
        return call(new Request.Builder().url(baseUrl + "/health").build())
                .path("instanceId")
                .asText();
    }

    private JsonNode call(Request req) throws IOException {
        try (Response r = http.newCall(req).execute()) {
            String body = r.body().string();
            if (!r.isSuccessful()) {
                throw new IOException(req.method() + " " + req.url() + " answered " + r.code() + ": " + body);
            }
            return Journal.JSON.readTree(body);
        }
    }
}
