package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.TestCertificate;

/** Plain http only to this machine unless allowed; the CA file's certificates, read or refused in words. */
@ProcessTest
class TransportSecurityTest {

    @TempDir
    Path tmp;

    @Test
    void plainHttpGoesToThisMachineOnlyUnlessAllowed() {
        for (String ok : new String[] {
            "http://127.0.0.1:8787",
            "http://127.3.4.5/",
            "http://localhost:1",
            "http://[::1]:8787/",
            "https://sync.example.org/",
            "http://app.localhost/"
        }) {
            assertThatCode(() -> TransportSecurity.DEFAULT.check(ServerUrls.parse(ok)))
                    .as(ok)
                    .doesNotThrowAnyException();
        }
        for (String bad : new String[] {
            "http://sync.example.org:8787",
            "http://10.0.0.5/",
            "http://128.0.0.1/",
            "http://127.0.0.1.example.org/",
            "http://[::2]/"
        }) {
            assertThatThrownBy(() -> TransportSecurity.DEFAULT.check(ServerUrls.parse("https://a.example/," + bad)))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is plain http:// to another machine")
                    .hasMessageContaining("--allow-insecure-http");
        }
        TransportSecurity allowed = TransportSecurity.load(Optional.empty(), true);
        assertThatCode(() -> allowed.check(ServerUrls.parse("http://sync.example.org:8787")))
                .doesNotThrowAnyException();
        assertThat(TransportSecurity.isLoopback(HttpUrl.get("http://127.0.0.1/")))
                .isTrue();
    }

    @Test
    void aCaFileIsReadWithEveryCertificateAndABadOneIsNamed() throws Exception {
        TestCertificate a = TestCertificate.make(tmp.resolve("a"));
        TestCertificate b = TestCertificate.make(tmp.resolve("b"));
        Path both = tmp.resolve("both.pem");
        Files.writeString(both, Files.readString(a.certFile()) + Files.readString(b.certFile()));
        TransportSecurity t = TransportSecurity.load(Optional.of(both), false);
        assertThat(t.extraTrust()).hasSize(2);
        assertThat(t.toString()).contains("extraTrust=2").doesNotContain("BEGIN");
        assertThat(FingerprintingTrustManager.fingerprint(t.extraTrust().get(0)))
                .isEqualTo(a.sha256());

        assertThatThrownBy(() -> TransportSecurity.load(Optional.of(tmp.resolve("none.pem")), false))
                .hasMessageContaining("none.pem does not exist");
        Path text = Files.writeString(tmp.resolve("text.pem"), "not a certificate\n");
        assertThatThrownBy(() -> TransportSecurity.load(Optional.of(text), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("text.pem");
        Path empty = Files.writeString(tmp.resolve("empty.pem"), "");
        assertThatThrownBy(() -> TransportSecurity.load(Optional.of(empty), false))
                .hasMessageContaining("holds no PEM certificate");
    }
}
