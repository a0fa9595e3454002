package org.leasesync.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Set;

/** The admin endpoints (docs/protocol.md §8). Thread-safe. */
final class AdminHandlers {

    private static final Set<String> FAULT_FIELDS =
            Set.of("latencyMs", "failPush", "dropAfterApply", "delayAfterApplyMs", "throttle");

    private final StatsRecorder stats;
    private final FaultSwitches faults;

    AdminHandlers(StatsRecorder stats, FaultSwitches faults) {
        this.stats = stats;
        this.faults = faults;
    }

    Reply stats(RequestContext ctx) {
        return Reply.json(200, stats.snapshot());
    }

    Reply resetStats(RequestContext ctx) {
        stats.reset();
        return Reply.json(200, stats.snapshot());
    }

    Reply getFaults(RequestContext ctx) {
        return Reply.json(200, faults.snapshot());
    }

    Reply putFaults(RequestContext ctx) throws Exception {
        JsonNode body = PushRequest.parseJson(ctx.readBody());
        if (!body.isObject()) {
            throw ApiError.badRequest("fault settings must be a JSON object");
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!FAULT_FIELDS.contains(name)) {
                throw ApiError.badRequest("unknown fault setting '" + name + "'; known: " + FAULT_FIELDS);
            }
        }
        FaultSettings now = faults.snapshot();
        FaultSettings next;
        try {
            next = new FaultSettings(
                    number(body, "latencyMs", now.latencyMs()),
                    (int) number(body, "failPush", now.failPush()),
                    (int) number(body, "dropAfterApply", now.dropAfterApply()),
                    number(body, "delayAfterApplyMs", now.delayAfterApplyMs()),
                    (int) number(body, "throttle", now.throttle()));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(e.getMessage());
        }
        faults.set(next);
        return Reply.json(200, faults.snapshot());
    }

    private static long number(JsonNode body, String name, long current) {
        JsonNode n = body.get(name);
        if (n == null) {
            return current;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw ApiError.badRequest(name + " must be an integer but was " + n);
        }
        return n.asLong();
    }
}
