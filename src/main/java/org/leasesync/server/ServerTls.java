package org.leasesync.server;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * The certificate and key {@code serve --tls-cert PEM --tls-key PEM} listens with: a PEM
 * certificate chain (the server's certificate first, then the intermediates) and its unencrypted
 * private key, RSA or EC, in PKCS#8 ({@code BEGIN PRIVATE KEY}) or the older PKCS#1 / SEC 1 forms
 * ({@code BEGIN RSA PRIVATE KEY}, {@code BEGIN EC PRIVATE KEY}). Parsed by Bouncy Castle's PEM
 * reader; the key is checked against the certificate by signing with it.
 *
 * <p>Immutable and thread-safe once loaded. The key stays in memory only, in the returned context.
 */
public final class ServerTls {

    private final SSLContext context;
    private final String description;

    private ServerTls(SSLContext context, String description) {
        this.context = context;
        this.description = description;
    }

    /**
     * Reads and checks both files. Blocks on reading them.
     *
     * @throws IllegalArgumentException naming the file and what is wrong with it: unreadable, no
     *     certificate, no key or an encrypted one, a key of another kind than RSA or EC, or a key
     *     that does not belong to the first certificate
     */
    public static ServerTls load(Path certificateChain, Path privateKey) {
        List<X509Certificate> chain = certificates(certificateChain);
        PrivateKey key = key(privateKey);
        if (!belongTogether(key, chain.get(0))) {
            throw new IllegalArgumentException(
                    "the TLS key in " + privateKey + " does not belong to the certificate in " + certificateChain + " ("
                            + chain.get(0).getSubjectX500Principal().getName() + ")");
        }
        try {
            char[] pass = new char[0];
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("server", key, pass, chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, pass);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, new SecureRandom());
            return new ServerTls(ctx, chain.get(0).getSubjectX500Principal().getName() + " from " + certificateChain);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    "cannot use the TLS certificate " + certificateChain + " with the key " + privateKey + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** The context the HTTPS server is configured with. */
    public SSLContext context() {
        return context;
    }

    /** The certificate's subject and file, for the start-up log. */
    public String describe() {
        return description;
    }

    private static List<X509Certificate> certificates(Path file) {
        List<X509Certificate> chain = new ArrayList<>();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser pem = new PEMParser(r)) {
            JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof X509CertificateHolder h) {
                    chain.add(converter.getCertificate(h));
                }
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "cannot read the TLS certificate file " + file + ": " + e.getMessage(), e);
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException(
                    "the TLS certificate file " + file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        return chain;
    }

    private static PrivateKey key(Path file) {
        Object found = null;
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser pem = new PEMParser(r)) {
            for (Object o = pem.readObject(); o != null && found == null; o = pem.readObject()) {
                if (o instanceof PrivateKeyInfo
                        || o instanceof PEMKeyPair
                        || o instanceof PEMEncryptedKeyPair
                        || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    found = o;
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the TLS key file " + file + ": " + e.getMessage(), e);
        }
        if (found instanceof PEMEncryptedKeyPair || found instanceof PKCS8EncryptedPrivateKeyInfo) {
            throw new IllegalArgumentException("the TLS key in " + file + " is encrypted; give it unencrypted "
                    + "(openssl pkey -in KEY -out PLAIN) and keep the file owner-only");
        }
        PrivateKeyInfo info = found instanceof PEMKeyPair kp ? kp.getPrivateKeyInfo() : (PrivateKeyInfo) found;
        if (info == null) {
            throw new IllegalArgumentException("the TLS key file " + file + " holds no PEM private key "
                    + "(-----BEGIN PRIVATE KEY-----, BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)");
        }
        try {
            PrivateKey key = new JcaPEMKeyConverter().getPrivateKey(info);
            if (!key.getAlgorithm().equals("RSA") && !key.getAlgorithm().equals("EC")) {
                throw new IllegalArgumentException(
                        "the TLS key in " + file + " is " + key.getAlgorithm() + "; serve takes RSA or EC keys");
            }
            return key;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the TLS key in " + file + ": " + e.getMessage(), e);
        }
    }

    private static boolean belongTogether(PrivateKey key, X509Certificate cert) {
        String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
        try {
            byte[] probe = "leasesync tls key check".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(cert.getPublicKey());
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
