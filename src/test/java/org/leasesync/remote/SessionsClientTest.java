package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.sync.RemoteException;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.TestCertificate;

/**
 * Sign-in and sign-out as protocol §12 scripts them, on MockWebServer; over real TLS with a certificate
 * openssl made: trusted through the CA file, refused without it naming its SHA-256 fingerprint.
 */
@ProcessTest
class SessionsClientTest {

    static final String TOKEN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ";

    @TempDir
    Path tmp;

    MockWebServer web;

    @BeforeEach
    void setUp() {
        web = new MockWebServer();
    }

    @AfterEach
    void tearDown() {
        web.close();
    }

    static MockResponse json(int code, String body) {
        return new MockResponse.Builder()
                .code(code)
                .addHeader("Content-Type", "application/json")
                .body(body)
                .build();
    }

    SessionsClient client(TransportSecurity transport) {
        ServerUrls servers = ServerUrls.single(web.url("/").toString());
        OkHttpClient shared = HttpSyncRemote.newSharedClient(servers, transport);
        return new SessionsClient(servers, shared, HttpSettings.DEFAULT);
    }

    @Test
    void signInPostsUserPasswordAndDeviceWithoutATokenAndReadsTheSession() throws Exception {
        web.enqueue(json(
                201,
                "{\"token\":\"" + TOKEN + "\",\"sessionId\":\"s1\",\"user\":\"alice\",\"admin\":false,"
                        + "\"expiresAt\":\"2027-03-01T10:00:00Z\",\"future\":1}"));
        web.start();
        SessionsClient.NewSession s = client(TransportSecurity.DEFAULT).signIn("alice", "pw 1".toCharArray(), "laptop");
        assertThat(s.token()).isEqualTo(TOKEN);
        assertThat(s.sessionId()).isEqualTo("s1");
        assertThat(s.expiresAt())
                .hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("2027-03-01T10:00:00Z"));
        assertThat(s.toString()).doesNotContain(TOKEN);
        RecordedRequest r = web.takeRequest();
        assertThat(r.getMethod()).isEqualTo("POST");
        assertThat(r.getUrl().encodedPath()).isEqualTo("/v1/sessions");
        assertThat(r.getHeaders().get("Authorization")).isNull();
        assertThat(r.getBody().utf8()).isEqualTo("{\"user\":\"alice\",\"password\":\"pw 1\",\"device\":\"laptop\"}");
    }

    @Test
    void refusalsKeepTheirStatusCodeAndRetryAfter() throws Exception {
        web.enqueue(json(401, "{\"code\":\"invalid_credentials\",\"message\":\"wrong user name or password\"}"));
        web.enqueue(new MockResponse.Builder()
                .code(429)
                .addHeader("Content-Type", "application/json")
                .addHeader("Retry-After", "600")
                .body("{\"code\":\"too_many_attempts\",\"message\":\"wait\"}")
                .build());
        web.enqueue(json(201, "{\"token\":\"has space\",\"sessionId\":\"s\"}"));
        web.start();
        SessionsClient c = client(TransportSecurity.DEFAULT);
        assertThatThrownBy(() -> c.signIn("alice", "x".toCharArray(), "d"))
                .isInstanceOfSatisfying(
                        RemoteException.class,
                        e -> assertThat(e.status() + " " + e.code()).isEqualTo("401 invalid_credentials"));
        assertThatThrownBy(() -> c.signIn("alice", "x".toCharArray(), "d"))
                .isInstanceOfSatisfying(
                        RemoteException.class,
                        e -> assertThat(e.retryAfterMillis()).isEqualTo(600_000));
        assertThatThrownBy(() -> c.signIn("alice", "x".toCharArray(), "d"))
                .isInstanceOfSatisfying(
                        RemoteException.class, e -> assertThat(e.kind()).isEqualTo(RemoteException.Kind.AMBIGUOUS));
    }

    @Test
    void signOutDeletesTheCurrentSessionWithItsTokenAndA401MeansItHadEnded() throws Exception {
        web.enqueue(new MockResponse.Builder().code(204).build());
        web.enqueue(json(401, "{\"code\":\"invalid_token\",\"message\":\"ended\"}"));
        web.start();
        SessionsClient c = client(TransportSecurity.DEFAULT);
        assertThat(c.signOut(TOKEN)).isEqualTo(SessionsClient.SignOut.ENDED);
        assertThat(c.signOut(TOKEN)).isEqualTo(SessionsClient.SignOut.ALREADY_ENDED);
        RecordedRequest r = web.takeRequest();
        assertThat(r.getMethod() + " " + r.getUrl().encodedPath()).isEqualTo("DELETE /v1/sessions/current");
        assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer " + TOKEN);
    }

    @Test
    void anUntrustedCertificateIsRefusedBeforeSendingNamingItsFingerprintAndTheCaFileTrustsIt() throws Exception {
        TestCertificate cert = TestCertificate.make(tmp);
        web.useHttps(cert.serverSockets());
        web.enqueue(json(201, "{\"token\":\"" + TOKEN + "\",\"sessionId\":\"s1\",\"user\":\"alice\"}"));
        web.start();
        assertThatThrownBy(() -> client(TransportSecurity.DEFAULT).signIn("alice", "pw".toCharArray(), "d"))
                .isInstanceOfSatisfying(CertificateNotTrustedException.class, e -> {
                    assertThat(e.sha256Fingerprint()).isEqualTo(cert.sha256());
                    assertThat(e.server()).isEqualTo(web.url("/").toString());
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.NOT_SENT);
                    assertThat(e.userMessage())
                            .contains("is not trusted (SHA-256 fingerprint " + cert.sha256())
                            .contains("--ca-file");
                });
        assertThat(web.getRequestCount()).as("nothing was sent").isZero();

        SessionsClient trusting = client(TransportSecurity.load(Optional.of(cert.certFile()), false));
        assertThat(trusting.signIn("alice", "pw".toCharArray(), "d").token()).isEqualTo(TOKEN);
    }
}
