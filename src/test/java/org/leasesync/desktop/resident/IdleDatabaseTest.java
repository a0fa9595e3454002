package org.leasesync.desktop.resident;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.store.Database;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.testing.ManualTime;

/**
 * The tray's database between its looks, on a real H2 file: closed after a full read (no lock file, so
 * no watchdog), known unchanged while its file keeps the stamp — a look then opens nothing — and not
 * once another connection wrote it, holds it open, a run uses it, or the last full read is too old.
 */
class IdleDatabaseTest {

    @TempDir
    Path dir;

    final ManualTime time = new ManualTime();
    final AtomicBoolean running = new AtomicBoolean();
    Database db;
    IdleDatabase idle;
    Path lock;

    @BeforeEach
    void open() {
        db = Database.openFile(dir);
        idle = new IdleDatabase(db, time, running::get);
        lock = DataDirectory.lockFile(dir);
    }

    @AfterEach
    void close() {
        db.close();
    }

    int read() {
        return db.query("count the runs", c -> {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM run")) {
                rs.next();
                return rs.getInt(1);
            }
        });
    }

    void readAllAndLetClose() {
        read();
        idle.readAll();
        idle.letClose(true);
    }

    /** Another process's write, as the CLI makes it: its own connection on the file's URL. */
    void writeElsewhere() throws Exception {
        try (Connection c = DriverManager.getConnection(DataDirectory.fileUrl(dir), "sa", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS written_elsewhere(i INT)");
            s.execute("INSERT INTO written_elsewhere VALUES 1");
        }
    }

    @Test
    void afterAFullReadTheFileIsClosedAndKnownUnchangedWithoutOpeningIt() {
        read();
        assertThat(lock).as("open, as the pool keeps a connection").exists();
        assertThat(idle.unchanged()).as("never read all").isFalse();
        idle.readAll();
        idle.letClose(true);
        assertThat(lock).as("closed: no lock file, no watchdog").doesNotExist();
        long size = DataDirectory.databaseFile(dir).toFile().length();
        for (int i = 0; i < 3; i++) {
            assertThat(idle.unchanged()).isTrue();
        }
        assertThat(lock).as("a look opens nothing").doesNotExist();
        assertThat(DataDirectory.databaseFile(dir).toFile().length()).isEqualTo(size);
        assertThat(read()).as("the next use opens it again").isZero();
        assertThat(lock).exists();
    }

    @Test
    void aWriteOfAnotherConnectionIsSeenAndAReadAllTrustsTheFileAgain() throws Exception {
        readAllAndLetClose();
        writeElsewhere();
        assertThat(lock).doesNotExist();
        assertThat(idle.unchanged()).as("written since").isFalse();
        readAllAndLetClose();
        assertThat(idle.unchanged()).isTrue();
    }

    @Test
    void aFileAnotherConnectionHoldsOpenIsNotKnownUnchanged() throws Exception {
        readAllAndLetClose();
        try (Connection c = DriverManager.getConnection(DataDirectory.fileUrl(dir), "sa", "")) {
            assertThat(lock).exists();
            assertThat(idle.unchanged()).isFalse();
            read();
            idle.readAll();
            idle.letClose(true); // waits for a close that does not come
            assertThat(idle.unchanged()).as("still held open").isFalse();
        }
        assertThat(idle.unchanged()).as("no stamp was kept while it was open").isFalse();
    }

    @Test
    void aRunGoingOnKeepsTheFileOpenAndUntrusted() {
        read();
        running.set(true);
        idle.readAll();
        idle.letClose(true);
        assertThat(lock).as("left open for the run").exists();
        assertThat(idle.unchanged()).isFalse();
        running.set(false);
        readAllAndLetClose();
        assertThat(idle.unchanged()).isTrue();
        running.set(true);
        assertThat(idle.unchanged())
                .as("a run elsewhere may end without a write")
                .isFalse();
    }

    @Test
    void aPartialReadOrAWriteOfItsOwnIsNotTrustedAndAFullReadIsDueAfterTenMinutes() {
        read();
        idle.letClose(false);
        assertThat(lock).doesNotExist();
        assertThat(idle.unchanged()).as("only part was read").isFalse();
        readAllAndLetClose();
        idle.written();
        assertThat(idle.unchanged()).isFalse();
        readAllAndLetClose();
        time.elapse(IdleDatabase.FULL_READ.minusSeconds(1));
        assertThat(idle.unchanged()).isTrue();
        time.elapse(java.time.Duration.ofSeconds(1));
        assertThat(idle.unchanged()).as("ten minutes after the last full read").isFalse();
    }

    @Test
    void anInMemoryDatabaseIsNeverKnownUnchanged() {
        try (Database mem = Database.openInMemory()) {
            IdleDatabase i = new IdleDatabase(mem, time, () -> false);
            i.readAll();
            i.letClose(true);
            assertThat(i.unchanged()).isFalse();
        }
    }
}
