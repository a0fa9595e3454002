package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;

/**
 * A write the disk refuses, at the JDBC boundary (the file system reports "No space left on
 * device"): a plain error naming the file, and every edit saved before is still there afterwards.
 * {@code cli.DiskFullProcessTest} does the same with a real full file system where one can be mounted.
 */
class FullDiskTest {

    static final TaskKey ALICE = TaskKey.of("alice", "backup");

    @TempDir
    Path tmp;

    @AfterEach
    void diskHasSpaceAgain() {
        FullDiskFilePath.FULL.set(false);
    }

    @Test
    void aWriteOnAFullDiskFailsNamingTheFileAndEveryEarlierOutboxEntryIsStillThereAfterReopening() {
        FullDiskFilePath.register();
        Path file = tmp.resolve("leasesync.mv.db");
        Database db =
                Database.open("jdbc:h2:fulldisk:" + tmp.resolve("leasesync") + ";WRITE_DELAY=0", file.toString(), 4);
        try {
            JdbcLocalEdits edits = new JdbcLocalEdits(db, TimeSource.system());
            for (int i = 0; i < 3; i++) {
                edits.addEdit(ALICE, "settings-" + i, "{\"n\":" + i + "}", false);
            }
            FullDiskFilePath.FULL.set(true);
            assertThatThrownBy(() -> edits.addEdit(ALICE, "settings-3", "{\"n\":3}", false))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("could not add a local edit of settings-3 for alice|backup in " + file
                            + ": the disk is full (No space left on device)")
                    .hasMessageContaining("nothing of this step was saved")
                    .hasMessageContaining("Free some space");
            assertThatThrownBy(() -> edits.outbox(ALICE))
                    .as("H2 closed the database; later calls say why")
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("the database was closed after an earlier write failed (the disk is full");
        } finally {
            FullDiskFilePath.FULL.set(false);
            db.close();
        }
        try (LocalStore store = LocalStore.openFile(tmp)) {
            assertThat(new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(ALICE))
                    .extracting(JdbcLocalEdits.OutboxItem::recordId)
                    .containsExactly("settings-0", "settings-1", "settings-2");
        }
    }
}
