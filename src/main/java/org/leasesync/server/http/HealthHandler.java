package org.leasesync.server.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import org.leasesync.server.protocol.ProtocolHeaders;
import org.leasesync.server.store.ServerDatabase;

/**
 * {@code GET /health}, unauthenticated, for load balancers (docs/protocol.md §10): {@code 200
 * {"status":"ok","instanceId":..,"database":..}} when this instance's database answers within 2 s,
 * else {@code 503 {"code":"unavailable",..}} with {@code Retry-After}. Thread-safe; blocks on the
 * database.
 */
public final class HealthHandler implements Handler {

    private final ServerDatabase db;

    public HealthHandler(ServerDatabase db) {
        this.db = db;
    }

    @Override
    public Reply handle(RequestContext ctx) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        if (db.answers()) {
            body.put("status", "ok");
            body.put("instanceId", db.instanceId());
            body.put("database", db.dialect().name().toLowerCase(Locale.ROOT));
            return Reply.json(200, body);
        }
        body.put("code", "unavailable");
        body.put("message", "the server database does not answer");
        body.put("instanceId", db.instanceId());
        return Reply.json(503, body).withHeader(ProtocolHeaders.RETRY_AFTER, "1");
    }
}
