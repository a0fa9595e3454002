package org.leasesync.keyring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.KeyringSession;
import org.leasesync.testing.ProcessTest;

/**
 * Tokens in a real GNOME Keyring on a private session bus, read back with secret-tool as a user would;
 * removing one leaves the rest of the login keyring unlocked and readable (no collection is ever
 * locked); with no bus, or no Secret Service on it, the vaults fall back to the file and say why.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@DesktopTest
@ProcessTest
class SecretServiceVaultTest {

    @TempDir
    Path tmp;

    @Test
    void storesFindsReplacesAndRemovesWithoutLockingTheLoginKeyring() throws Exception {
        try (KeyringSession keyring = KeyringSession.start(tmp.resolve("keyring"))) {
            keyring.run("sh", "-c", "printf other-secret | secret-tool store --label=other service other-app user me");
            TokenSlot slot = new TokenSlot("https://sync.example.org/", "alice");
            try (SecretServiceVault v = SecretServiceVault.connect(keyring.busAddress(), Duration.ofSeconds(10))) {
                assertThat(v.find(slot)).isEmpty();
                v.store(slot, "tok-1");
                v.store(slot, "tok-2");
                assertThat(v.find(slot)).contains("tok-2");
                assertThat(keyring.lookup("https://sync.example.org/", "alice")).isEqualTo("tok-2");
                assertThat(keyring.run("secret-tool", "search", "--all", "service", "leasesync"))
                        .as("one item, replaced")
                        .containsOnlyOnce("secret = ")
                        .contains("label = leasesync session of alice on https://sync.example.org/");
                assertThat(v.remove(slot)).isTrue();
                assertThat(v.remove(slot)).isFalse();
                assertThat(v.find(slot)).isEmpty();
            }
            assertThat(keyring.lookup("https://sync.example.org/", "alice")).isEmpty();
            assertThat(keyring.run("secret-tool", "lookup", "service", "other-app", "user", "me")
                            .strip())
                    .as("the rest of the keyring is still unlocked and readable")
                    .isEqualTo("other-secret");
            TokenVaults.Opened opened = TokenVaults.forNewToken(tmp.resolve("data"), keyring.env());
            try (TokenVault v = opened.vault()) {
                assertThat(v.place()).isEqualTo(TokenVault.Place.KEYRING);
                assertThat(opened.whyNotKeyring()).isEmpty();
            }
        }
    }

    @Test
    void withoutABusOrWithoutASecretServiceOnItTheFileIsUsedAndWhyIsSaid() throws Exception {
        Path runtime = Files.createDirectories(tmp.resolve("run"));
        TokenVaults.Opened none =
                TokenVaults.forNewToken(tmp.resolve("data"), Map.of("XDG_RUNTIME_DIR", runtime.toString()));
        assertThat(none.vault()).isInstanceOf(TokenFile.class);
        assertThat(none.whyNotKeyring()).hasValueSatisfying(w -> assertThat(w).startsWith("no session bus"));
        assertThatThrownBy(() -> TokenVaults.open(TokenVault.Place.KEYRING, tmp.resolve("data"), Map.of()))
                .isInstanceOf(KeyringUnavailableException.class)
                .hasMessageContaining("no session bus here");

        Path socket = runtime.resolve("bus");
        // a bus of its own with no service directory: nothing can be started on it by activation
        Path config = Files.writeString(tmp.resolve("bus.conf"), """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>unix:path=%s</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
                </busconfig>
                """.formatted(socket));
        Process bus = new ProcessBuilder("dbus-daemon", "--config-file=" + config, "--nofork")
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("bus.log").toFile())
                .start();
        try {
            for (int i = 0; i < 100 && !Files.exists(socket); i++) {
                Thread.sleep(100);
            }
            TokenVaults.Opened onBus = TokenVaults.forNewToken(
                    tmp.resolve("data"), Map.of("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + socket));
            assertThat(onBus.vault()).isInstanceOf(TokenFile.class);
            assertThat(onBus.whyNotKeyring())
                    .hasValueSatisfying(w -> assertThat(w)
                            .isEqualTo("no Secret Service on the session bus unix:path=" + socket
                                    + ": no keyring daemon runs there, and the bus cannot start one"));
        } finally {
            bus.destroy();
            bus.waitFor();
        }
    }
}
