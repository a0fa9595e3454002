package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.ConnectionSpec;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/** The application's shared OkHttp client sets up TLS only when a server URL needs it. */
class SharedClientTest {

    @Test
    void aClientForHttpServersOnlyIsCleartextAndStillTalksHttpOnLoopback() throws Exception {
        try (MockWebServer web = new MockWebServer()) {
            web.enqueue(new MockResponse.Builder().code(200).body("ok").build());
            web.start();
            OkHttpClient client = HttpSyncRemote.newSharedClient(
                    ServerUrls.single(web.url("/").toString()));
            assertThat(client.connectionSpecs()).containsExactly(ConnectionSpec.CLEARTEXT);
            assertThat(client.retryOnConnectionFailure()).isFalse();
            try (Response r = client.newCall(
                            new Request.Builder().url(web.url("/v1/health")).build())
                    .execute()) {
                assertThat(r.code()).isEqualTo(200);
                assertThat(r.body().string()).isEqualTo("ok");
            }
            // no TLS socket factory (and so no trust store) was built; an https URL fails instead of connecting
            assertThatThrownBy(client::sslSocketFactory)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("CLEARTEXT");
            String https = web.url("/").newBuilder().scheme("https").build().toString();
            OkHttpClient quick = client.newBuilder()
                    .callTimeout(java.time.Duration.ofSeconds(2))
                    .build();
            assertThatThrownBy(
                            () -> quick.newCall(new Request.Builder().url(https).build())
                                    .execute())
                    .isInstanceOf(java.io.IOException.class);
        }
    }

    @Test
    void aClientWithAnHttpsServerAmongItsUrlsKeepsTls() {
        OkHttpClient client =
                HttpSyncRemote.newSharedClient(ServerUrls.parse("http://a.invalid:8787,https://b.invalid:8787"));
        assertThat(client.connectionSpecs()).contains(ConnectionSpec.MODERN_TLS);
        assertThat(client.sslSocketFactory()).isNotNull();
        assertThat(client.retryOnConnectionFailure()).isFalse();
    }
}
