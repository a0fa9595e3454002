package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.ProcessTest;

/**
 * HTTPS with {@code serve --tls-cert/--tls-key}: certificates made here by openssl (RSA with a
 * PKCS#8 key, EC with a SEC 1 key), an OkHttp client that trusts exactly that certificate, the
 * embedded server and a real {@code serve} process.
 */
@ProcessTest
class TlsTest {

    @TempDir
    Path dir;

    private final List<ServeProcess> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (ServeProcess p : started) {
            p.stop();
        }
    }

    /** A self-signed certificate for 127.0.0.1 and its key; returns {cert, key}. */
    private Path[] certificate(String name, String... keyArgs) throws Exception {
        Path cert = dir.resolve(name + "-cert.pem");
        Path key = dir.resolve(name + "-key.pem");
        List<String> cmd = new ArrayList<>(List.of(
                "openssl",
                "req",
                "-x509",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=leasesync test",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString()));
        cmd.addAll(List.of(keyArgs));
        run(cmd);
        return new Path[] {cert, key};
    }

    private static void run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
    }

    /** A client that trusts {@code cert} and nothing else. */
    static OkHttpClient trusting(Path cert) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(cert)) {
            trust.setCertificateEntry(
                    "server", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        X509TrustManager tm = (X509TrustManager) tmf.getTrustManagers()[0];
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new javax.net.ssl.TrustManager[] {tm}, null);
        return new OkHttpClient.Builder()
                .sslSocketFactory(ctx.getSocketFactory(), tm)
                .connectionPool(new okhttp3.ConnectionPool())
                .retryOnConnectionFailure(false)
                .build();
    }

    private static int get(OkHttpClient http, String url, String token) throws Exception {
        Request.Builder b = new Request.Builder().url(url);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        try (Response r = http.newCall(b.build()).execute()) {
            r.body().string();
            return r.code();
        }
    }

    @Test
    void theEmbeddedServerServesHttpsWithAnRsaCertificateAndAPkcs8Key() throws Exception {
        Path[] files = certificate("rsa", "-newkey", "rsa:2048");
        assertThat(Files.readString(files[1])).contains("BEGIN PRIVATE KEY");

        try (ReferenceServer server =
                ReferenceServer.start(ServerConfig.defaults().withTls(ServerTls.load(files[0], files[1])))) {
            assertThat(server.baseUrl()).startsWith("https://127.0.0.1:");
            OkHttpClient https = trusting(files[0]);
            TestClient client = new TestClient(server, https);
            assertThat(client.pull("alice", "course_sync", null).status()).isEqualTo(200);
            TestClient.Resp signIn =
                    client.post("/v1/sessions", null, Map.of(), "{\"user\":\"nobody\",\"password\":\"x\"}");
            assertThat(signIn.status()).isEqualTo(401);

            OkHttpClient plain = new OkHttpClient.Builder()
                    .connectionPool(new okhttp3.ConnectionPool())
                    .build();
            String httpUrl = server.baseUrl().replace("https://", "http://") + "/health";
            assertThatThrownBy(() -> get(plain, httpUrl, null))
                    .as("plain HTTP on the TLS port")
                    .isInstanceOf(Exception.class);
            OkHttpClient untrusting = new OkHttpClient.Builder()
                    .connectionPool(new okhttp3.ConnectionPool())
                    .build();
            assertThatThrownBy(() -> get(untrusting, server.baseUrl() + "/health", null))
                    .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
        }
    }

    @Test
    void aServeProcessListensWithAnEcCertificateAndASec1Key() throws Exception {
        Path[] files = certificate("ec", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1");
        Path sec1 = dir.resolve("ec-key-sec1.pem");
        run(List.of("openssl", "ec", "-in", files[1].toString(), "-out", sec1.toString()));
        assertThat(Files.readString(sec1)).contains("BEGIN EC PRIVATE KEY");

        ServeProcess serve = ServeProcess.start(
                dir.resolve("serve.log"),
                Map.of(),
                started,
                "--tls-cert",
                files[0].toString(),
                "--tls-key",
                sec1.toString());

        // the log holds stderr too; the listening line is standard output's first
        assertThat(Files.readAllLines(serve.log).stream()
                        .filter(l -> l.startsWith("listening on "))
                        .findFirst())
                .hasValueSatisfying(l -> assertThat(l).matches("listening on https://127\\.0\\.0\\.1:\\d+"));
        OkHttpClient https = trusting(files[0]);
        assertThat(get(https, serve.url + "/health", null)).isEqualTo(200);
        assertThat(get(https, serve.url + "/v1/users/alice/scopes/backup/changes", serve.alice))
                .isEqualTo(200);
        assertThat(get(https, serve.url + "/v1/admin/stats", serve.admin)).isEqualTo(200);
    }

    @Test
    void aKeyOfAnotherCertificateOrAFileWithoutPemIsRefusedByName() throws Exception {
        Path[] one = certificate("one", "-newkey", "rsa:2048");
        Path[] two = certificate("two", "-newkey", "rsa:2048");
        Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate\n");

        assertThatThrownBy(() -> ServerTls.load(one[0], two[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not belong to the certificate")
                .hasMessageContaining(two[1].toString());
        assertThatThrownBy(() -> ServerTls.load(junk, one[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no PEM certificate");
        assertThatThrownBy(() -> ServerTls.load(one[0], junk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no PEM private key");
        assertThatThrownBy(() -> ServerTls.load(dir.resolve("missing.pem"), one[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing.pem");
    }
}
