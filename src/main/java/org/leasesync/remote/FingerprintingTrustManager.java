package org.leasesync.remote;

import java.net.Socket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The JDK's trust decision, unchanged, except that a server chain it refuses is reported as an
 * {@link Untrusted} naming the server certificate's SHA-256 fingerprint: the JDK's own message
 * ("PKIX path building failed") tells the user nothing they can check. Thread-safe, as its delegate.
 */
final class FingerprintingTrustManager extends X509ExtendedTrustManager {

    private final X509TrustManager delegate;

    FingerprintingTrustManager(X509TrustManager delegate) {
        this.delegate = delegate;
    }

    /** A server certificate chain that no trusted authority vouches for. */
    static final class Untrusted extends CertificateException {
        private static final long serialVersionUID = 1L;

        private final String sha256;
        private final String subject;

        Untrusted(X509Certificate leaf, CertificateException cause) {
            super(
                    "certificate not trusted: " + leaf.getSubjectX500Principal().getName() + ", SHA-256 fingerprint "
                            + fingerprint(leaf),
                    cause);
            this.sha256 = fingerprint(leaf);
            this.subject = leaf.getSubjectX500Principal().getName();
        }

        String sha256() {
            return sha256;
        }

        String subject() {
            return subject;
        }
    }

    /** The SHA-256 fingerprint of a certificate's DER encoding, as {@code AB:CD:…} (what {@code openssl x509 -fingerprint -sha256} prints). */
    static String fingerprint(X509Certificate cert) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            return "(unknown: " + e.getMessage() + ")";
        }
    }

    private static Untrusted untrusted(X509Certificate[] chain, CertificateException e) {
        return chain == null || chain.length == 0 ? null : new Untrusted(chain[0], e);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        try {
            if (delegate instanceof X509ExtendedTrustManager x) {
                x.checkServerTrusted(chain, authType, socket);
            } else {
                delegate.checkServerTrusted(chain, authType);
            }
        } catch (CertificateException e) {
            Untrusted u = untrusted(chain, e);
            throw u == null ? e : u;
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        try {
            if (delegate instanceof X509ExtendedTrustManager x) {
                x.checkServerTrusted(chain, authType, engine);
            } else {
                delegate.checkServerTrusted(chain, authType);
            }
        } catch (CertificateException e) {
            Untrusted u = untrusted(chain, e);
            throw u == null ? e : u;
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            delegate.checkServerTrusted(chain, authType);
        } catch (CertificateException e) {
            Untrusted u = untrusted(chain, e);
            throw u == null ? e : u;
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }
}
