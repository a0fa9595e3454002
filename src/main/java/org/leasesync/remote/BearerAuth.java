package org.leasesync.remote;

import java.io.IOException;
import java.util.function.Function;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/** Adds {@code Authorization: Bearer <token>} for the request's user. Thread-safe. */
final class BearerAuth implements Interceptor {

    private final Function<String, String> tokens;

    BearerAuth(Function<String, String> tokens) {
        this.tokens = tokens;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Request req = chain.request();
        HttpSyncRemote.UserTag tag = req.tag(HttpSyncRemote.UserTag.class);
        String token = tag == null ? null : tokens.apply(tag.userId());
        if (token == null || token.isBlank()) {
            return chain.proceed(req);
        }
        return chain.proceed(
                req.newBuilder().header("Authorization", "Bearer " + token).build());
    }
}
