package org.leasesync.remote;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.tls.HandshakeCertificates;

/**
 * How a client talks to its sync server safely: a bearer token never crosses the network in clear,
 * and HTTPS trusts the system's certificate authorities plus the certificates of a CA file.
 * Immutable and thread-safe.
 *
 * <ul>
 *   <li>A plain {@code http://} URL is allowed to this machine only (a loopback address or
 *       {@code localhost}), unless {@link #allowInsecureHttp()} says the network in between is the
 *       user's own ({@link #check}).</li>
 *   <li>An {@code https://} server whose certificate chain no trusted authority vouches for fails
 *       the connection before anything is sent, with a {@link CertificateNotTrustedException} that
 *       names the server and its certificate's SHA-256 fingerprint, so the user can compare it with
 *       the one their server's operator gives them.</li>
 * </ul>
 *
 * @param allowInsecureHttp plain {@code http://} to any host is allowed (the user said so)
 * @param caFile the PEM file the extra certificates were read from, for messages; empty for none
 * @param extraTrust the certificates trusted beside the system's (from {@code caFile})
 */
public record TransportSecurity(boolean allowInsecureHttp, Optional<Path> caFile, List<X509Certificate> extraTrust) {

    /** Plain http to this machine only; the system's certificate authorities. */
    public static final TransportSecurity DEFAULT = new TransportSecurity(false, Optional.empty(), List.of());

    public TransportSecurity {
        Objects.requireNonNull(caFile, "caFile");
        extraTrust = List.copyOf(extraTrust);
    }

    /**
     * Reads the certificates of a CA file (PEM, one or more {@code BEGIN CERTIFICATE} blocks, parsed
     * by the JDK's X.509 certificate factory). Blocks on a small file read.
     *
     * @param caFile the PEM file, or empty for the system's authorities only
     * @throws IllegalArgumentException naming the file when it cannot be read or holds no certificate
     */
    public static TransportSecurity load(Optional<Path> caFile, boolean allowInsecureHttp) {
        if (caFile.isEmpty()) {
            return new TransportSecurity(allowInsecureHttp, Optional.empty(), List.of());
        }
        Path file = caFile.get().toAbsolutePath().normalize();
        List<X509Certificate> certs = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                if (c instanceof X509Certificate x) {
                    certs.add(x);
                }
            }
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("the CA file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("the CA file " + file + " cannot be read: " + e.getMessage());
        } catch (CertificateException e) {
            throw new IllegalArgumentException(
                    "the CA file " + file + " is not a PEM certificate file: " + firstLine(e.getMessage()));
        }
        if (certs.isEmpty()) {
            throw new IllegalArgumentException("the CA file " + file + " holds no PEM certificate "
                    + "(expected -----BEGIN CERTIFICATE----- blocks)");
        }
        return new TransportSecurity(allowInsecureHttp, Optional.of(file), certs);
    }

    /**
     * Refuses a plain {@code http://} URL to a host other than this machine, unless allowed.
     *
     * @throws IllegalArgumentException naming the URL and what to do
     */
    public void check(ServerUrls servers) {
        if (allowInsecureHttp) {
            return;
        }
        Optional<String> plain = plainHttpToAnotherMachine(servers);
        if (plain.isPresent()) {
            throw new IllegalArgumentException("'" + plain.get() + "' is plain http:// to another "
                    + "machine: the session token would cross the network in clear. Use https://, or give "
                    + "--allow-insecure-http if the network in between is your own");
        }
    }

    /** The first of {@code servers} that is plain {@code http://} to another machine, for display; empty when none. Pure. */
    public static Optional<String> plainHttpToAnotherMachine(ServerUrls servers) {
        return servers.urls().stream()
                .filter(u -> !u.isHttps() && !isLoopback(u))
                .findFirst()
                .map(ServerUrls::display);
    }

    /** Whether {@code url}'s host is this machine: {@code localhost}, {@code 127.0.0.0/8} or {@code ::1}. Pure. */
    public static boolean isLoopback(HttpUrl url) {
        String host = url.host();
        if (host.equals("localhost") || host.endsWith(".localhost") || host.equals("::1")) {
            return true;
        }
        // okhttp canonicalizes IPv4 literals to dotted decimal, so the first octet decides
        return host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    }

    /**
     * Sets up TLS on a builder derived from the shared client: when any of {@code servers} is
     * {@code https}, the system's authorities plus {@link #extraTrust()}, through a trust manager that
     * reports an untrusted chain with its fingerprint; when none is, cleartext only (no TLS is set
     * up at all, which keeps a window on a local server free of the JDK's trust store).
     *
     * @return {@code b}
     */
    public OkHttpClient.Builder configure(OkHttpClient.Builder b, ServerUrls servers) {
        if (servers.urls().stream().noneMatch(HttpUrl::isHttps)) {
            return b.connectionSpecs(List.of(okhttp3.ConnectionSpec.CLEARTEXT));
        }
        // a builder derived from a cleartext-only client (one made for http servers) must speak TLS again
        b.connectionSpecs(List.of(okhttp3.ConnectionSpec.MODERN_TLS, okhttp3.ConnectionSpec.CLEARTEXT));
        HandshakeCertificates.Builder trust = new HandshakeCertificates.Builder().addPlatformTrustedCertificates();
        extraTrust.forEach(trust::addTrustedCertificate);
        FingerprintingTrustManager tm =
                new FingerprintingTrustManager(trust.build().trustManager());
        try {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, new javax.net.ssl.TrustManager[] {tm}, null);
            return b.sslSocketFactory(tls.getSocketFactory(), tm);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this Java runtime cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** Never the certificates' contents: how many, from where. */
    @Override
    public String toString() {
        return "TransportSecurity[allowInsecureHttp=" + allowInsecureHttp + ", caFile="
                + caFile.map(Path::toString).orElse("none") + ", extraTrust=" + extraTrust.size() + "]";
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }
}
