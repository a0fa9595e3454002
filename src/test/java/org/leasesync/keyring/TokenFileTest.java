package org.leasesync.keyring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.ProcessTest;

/**
 * The fallback file: owner-only, one token per slot, narrowed again when someone widened it, and
 * another account's folder or file refused (root, as the tests run here, could read it otherwise).
 */
@ProcessTest
class TokenFileTest {

    @TempDir
    Path data;

    @Test
    void storesFindsReplacesAndRemovesOwnerOnly() throws Exception {
        TokenFile f = new TokenFile(data);
        TokenSlot alice = new TokenSlot("https://a.example/", "alice");
        TokenSlot bob = new TokenSlot("https://a.example/", "bob");
        assertThat(f.find(alice)).isEmpty();
        assertThat(f.remove(alice)).isFalse();
        assertThat(data.resolve("credentials")).doesNotExist();
        f.store(alice, "tok-a1");
        f.store(bob, "tok-b");
        f.store(alice, "tok-a2");
        assertThat(f.find(alice)).contains("tok-a2");
        assertThat(f.find(bob)).contains("tok-b");
        assertThat(Files.getPosixFilePermissions(f.path())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(f.path().getParent()))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.readString(f.path())).doesNotContain("tok-a1");
        try (var left = Files.list(f.path().getParent())) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("tokens.json", "tokens.lock");
        }

        Files.setPosixFilePermissions(f.path(), PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(f.find(bob)).contains("tok-b");
        assertThat(Files.getPosixFilePermissions(f.path())).isEqualTo(PosixFilePermissions.fromString("rw-------"));

        assertThat(f.remove(alice)).isTrue();
        assertThat(f.find(alice)).isEmpty();
        assertThat(f.find(bob)).contains("tok-b");
        assertThat(f.description()).contains(f.path().toString()).doesNotContain("tok-b");
    }

    @Test
    void aFolderOrFileOfAnotherAccountIsNeitherReadNorWritten() throws Exception {
        org.leasesync.testing.OtherAccount.require();
        TokenFile f = new TokenFile(data);
        TokenSlot alice = new TokenSlot("https://a.example/", "alice");
        f.store(alice, "tok-a");
        Files.setPosixFilePermissions(f.path(), PosixFilePermissions.fromString("rw-r--r--"));
        org.leasesync.testing.OtherAccount.chown(f.path());

        assertThatThrownBy(() -> f.find(alice))
                .isInstanceOf(KeyringException.class)
                .hasMessageContaining(f.path() + " belongs to nobody")
                .hasMessageNotContaining("tok-a");
        assertThat(Files.getPosixFilePermissions(f.path()))
                .as("left as it is")
                .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));

        Files.delete(f.path());
        org.leasesync.testing.OtherAccount.chown(f.path().getParent());
        assertThatThrownBy(() -> f.store(alice, "tok-new"))
                .isInstanceOf(KeyringException.class)
                .hasMessageContaining(f.path().getParent() + " belongs to nobody");
        assertThat(f.path()).doesNotExist();
    }
}
