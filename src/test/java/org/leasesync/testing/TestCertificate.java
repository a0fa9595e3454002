package org.leasesync.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;

/**
 * A self-signed server certificate for {@code localhost} and {@code 127.0.0.1}, made by the real
 * {@code openssl} for the test (as an operator would make one), with its SHA-256 fingerprint as
 * {@code openssl x509 -fingerprint -sha256} prints it. A missing {@code openssl} fails the test naming
 * the Debian package.
 *
 * @param certFile the certificate, PEM (what a user passes with --ca-file)
 * @param keyFile its private key, PEM, unencrypted (what {@code serve --tls-key} takes)
 * @param sha256 its fingerprint, {@code AB:CD:…}
 * @param certificate the certificate, for a test's client that trusts it
 * @param serverSockets TLS server sockets presenting it (for MockWebServer's {@code useHttps})
 */
public record TestCertificate(
        Path certFile, Path keyFile, String sha256, X509Certificate certificate, SSLSocketFactory serverSockets) {

    /** Makes one in {@code dir}. */
    public static TestCertificate make(Path dir) throws IOException, InterruptedException {
        if (DesktopSession.which("openssl").isEmpty()) {
            throw new AssertionError("the TLS tests make their certificates with openssl; install it: apt-get install "
                    + "openssl (.ci/run does)");
        }
        Files.createDirectories(dir);
        Path key = dir.resolve("server-key.pem");
        Path cert = dir.resolve("server-cert.pem");
        run(
                dir,
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1");
        String fingerprint = run(dir, "openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", cert.toString());
        String sha256 = fingerprint.substring(fingerprint.indexOf('=') + 1).strip();
        HeldCertificate held = HeldCertificate.decode(Files.readString(cert) + Files.readString(key));
        SSLSocketFactory sockets = new HandshakeCertificates.Builder()
                .heldCertificate(held)
                .build()
                .sslSocketFactory();
        return new TestCertificate(cert, key, sha256, held.certificate(), sockets);
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(command))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }
}
