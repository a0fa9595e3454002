package org.leasesync.server.http;

import org.leasesync.server.protocol.ApiError;

/** One endpoint. Throws {@link ApiError} for protocol errors; anything else becomes a 500/503. */
@FunctionalInterface
interface Handler {
    Reply handle(RequestContext ctx) throws Exception;
}
