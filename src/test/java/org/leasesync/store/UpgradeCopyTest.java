package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.StoreException;
import org.leasesync.store.h2.UpgradeCopy;
import org.leasesync.testing.ProcessTest;

/**
 * The copy taken before an upgrade: put back when one is found at the next start (the upgrade did not
 * finish), and refused with a clear message, nothing migrated, when the disk has no room for it (a real
 * small tmpfs: needs root with CAP_SYS_ADMIN, as in CI, where a failed mount fails the test).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ProcessTest
class UpgradeCopyTest {

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void aCopyFoundAtTheNextStartIsPutBackOverAHalfMigratedFileAndTheUpgradeRunsAgain() throws Exception {
        Path dir = tmp.resolve("d");
        OldSchemas.client(dir, 2);
        Path file = dir.resolve("leasesync.mv.db");
        Files.copy(file, dir.resolve("leasesync.mv.db" + UpgradeCopy.SUFFIX));
        // what a migration cut short leaves: V3's first statements applied, no history row for them
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("leasesync"), "sa", "")) {
            c.createStatement().execute("CREATE TABLE half_applied (id INT)");
            c.createStatement().execute("DELETE FROM outbox");
        }
        try (Database db = Database.openFile(dir, Duration.ofSeconds(30));
                Connection c = db.dataSource().getConnection()) {
            String all = OldSchemas.snapshot(c);
            assertThat(all).doesNotContain("HALF_APPLIED").contains("unsent edit", "new, unsent");
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION))
                    .isTrue();
        }
        assertThat(dir.resolve("leasesync.mv.db" + UpgradeCopy.SUFFIX)).doesNotExist();
    }

    @Test
    void noRoomForTheCopyRefusesTheUpgradeSayingWhatIsNeededAndMigratesNothing() throws Exception {
        Path fs = Files.createDirectory(tmp.resolve("fs"));
        Process mount = new ProcessBuilder(
                        "mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "leasesync-test", fs.toString())
                .redirectErrorStream(true)
                .start();
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        String why = "cannot mount a small tmpfs here (needs root with CAP_SYS_ADMIN): "
                + new String(mount.getInputStream().readAllBytes());
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat(mounted).as(why).isTrue(); // CI runs as root: a failed mount is a failure, never a skip
        }
        assumeTrue(mounted, why);
        try {
            Path dir = fs.resolve("data");
            OldSchemas.client(dir, 2);
            assertThatThrownBy(() -> Database.openFile(dir, Duration.ofSeconds(30)))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith(
                            "not enough disk space to upgrade the local database " + dir.resolve("leasesync.mv.db"))
                    .hasMessageContaining(
                            "a copy of it is taken first",
                            "MiB free in " + dir,
                            "It was not upgraded and nothing was changed");
            try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("leasesync"), "sa", "")) {
                assertThat(OldSchemas.snapshot(c)).endsWith("history: null 1 2").contains("unsent edit");
            }
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.contains("upgrade-copy"));
            }
        } finally {
            unmount(fs);
        }
    }

    private static void unmount(Path fs) throws IOException, InterruptedException {
        new ProcessBuilder("umount", fs.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
    }
}
