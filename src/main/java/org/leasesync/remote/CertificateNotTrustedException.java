package org.leasesync.remote;

import org.leasesync.sync.RemoteException;

/**
 * An {@code https://} sync server presented a certificate that neither the system's authorities
 * nor the CA file vouch for, so the connection was closed before anything was sent (kind
 * {@link RemoteException.Kind#NOT_SENT}, code {@value #CODE}). It names the server and the
 * certificate's SHA-256 fingerprint, for the user to compare with the one their server's operator
 * gives them before trusting it with {@code --ca-file}.
 */
public final class CertificateNotTrustedException extends RemoteException {
    private static final long serialVersionUID = 1L;

    /** The {@link #code()} of this error. */
    public static final String CODE = "untrusted_certificate";

    private final String server;
    private final String sha256;

    CertificateNotTrustedException(String server, String sha256, String subject, Throwable cause) {
        super(
                Kind.NOT_SENT,
                0,
                CODE,
                -1,
                "the certificate of " + server + " is not trusted (SHA-256 fingerprint " + sha256
                        + "); if it is your server's, trust it with --ca-file",
                "TLS handshake with " + server + " refused: certificate " + subject + " (SHA-256 " + sha256
                        + ") is not signed by a trusted authority",
                cause);
        this.server = server;
        this.sha256 = sha256;
    }

    /** The server URL, without user info. */
    public String server() {
        return server;
    }

    /** The server certificate's SHA-256 fingerprint, {@code AB:CD:…} (upper-case hex, colons). */
    public String sha256Fingerprint() {
        return sha256;
    }
}
