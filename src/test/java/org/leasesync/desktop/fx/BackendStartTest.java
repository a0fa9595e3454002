package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.DamagedFiles;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.OtherAccount;
import org.leasesync.testing.ProcessTest;

/** The window's start path ({@link Backend#start}) without JavaFX: what it does before any window exists. */
@ProcessTest
class BackendStartTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(DamagedFiles.class)
    void theWindowRefusesADamagedDatabaseBeforeStartingAnythingAndLeavesItUnchanged(DamagedFiles damage)
            throws Exception {
        Path dir = tmp.resolve("data");
        try (LocalStore store = LocalStore.openFile(dir)) {
            new JdbcLocalEdits(store.database(), TimeSource.system())
                    .addEdit(TaskKey.of("alice", "backup"), "settings", "{\"theme\":\"dark\"}", false);
        }
        Path file = dir.resolve("leasesync.mv.db");
        damage.damage(file);
        String hash = DamagedFiles.sha256(file);
        // What the setup left (the file; with assertions on, H2 2.4's compaction on close can fail an
        // internal assert and leave a leasesync.trace.db about it): starting must add nothing to it.
        List<Path> before;
        try (var files = Files.list(dir)) {
            before = files.sorted().toList();
        }
        assertThat(before).contains(file);

        assertThatThrownBy(() -> Backend.start(UiTestSupport.settings(dir, Duration.ofMinutes(5), TimeSource.system())))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("the local database " + file + " is damaged: ")
                .hasMessageContaining("changed nothing", "Restore it from a backup", "move it aside");

        assertThat(DamagedFiles.sha256(file)).isEqualTo(hash);
        try (var files = Files.list(dir)) {
            assertThat(files.sorted().toList())
                    .as("not even the embedded server was started")
                    .isEqualTo(before);
        }
    }

    @Test
    void theWindowsDataDirectoryMadeWithMkdirIsOwnerOnlyWithTheEmbeddedServersFiles() throws Exception {
        OtherAccount.require();
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Backend backend = Backend.start(UiTestSupport.settings(dir, Duration.ofMinutes(5), TimeSource.system()));
        try {
            assertThat(dir.resolve("embedded-server.json"))
                    .as("holds the demo accounts' tokens")
                    .exists();
            assertThat(dir.resolve("embedded-server")).isDirectory();
            assertThat(OtherAccount.notOwnerOnly(dir))
                    .as("while the window runs")
                    .isEmpty();
        } finally {
            backend.close();
        }
        assertThat(OtherAccount.notOwnerOnly(dir)).as("after it closed").isEmpty();
    }
}
