package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.StoreException;
import org.leasesync.store.CommitThenDieMain.KillOutcome;
import org.leasesync.store.h2.DatabaseFileCheck;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The start-up check and the file a process killed in the middle of a commit leaves: H2 wrote the
 * commit's chunk into reused space, and the process died before H2 rewrote the store header to name
 * it. That commit never returned, H2 ignores the chunk, nothing acknowledged is lost: the file is
 * healthy and must open (the check used to refuse it as damaged, on every start). A file whose
 * header names a chunk H2 can no longer read is still refused, and so is a kill after which H2
 * itself would open a state older than the last acknowledged commit.
 *
 * <p>Real child JVMs write the file ({@link CommitThenDieMain}); the header as it was before the last
 * commit is put back, which is the file the kill between the two writes leaves. What H2 makes of that
 * file depends on where H2 put the chunk, and that on the layout the file had: from a file reopened
 * after a clean close, on how far H2's compaction at that close (bounded to 200 ms) got, so on the
 * machine's load. The child therefore commits until H2 itself (read-only, on a copy) opens the file
 * the kill leaves at the state asked for ({@link KillOutcome}), whatever the load. One healthy layout
 * that came up only under load (4 attempts of 100) is kept as the file it was.
 */
@ProcessTest
class KillBetweenChunkAndHeaderTest {

    /** The most commits a child makes looking for the outcome (it came within two in every run seen). */
    static final int COMMITS = 12;

    /**
     * CI's failure, as a file: H2's header still named chunk 0x7c at block 0x10, 0x7d had been appended
     * after it (where 0x7c said the next chunk would go, so no header write) and superseded all of it,
     * and the interrupted commit's chunk 0x7e went into 0x7c's freed space. H2 opens 0x7d, the last
     * acknowledged commit (ids 1-3; 4 was interrupted). Written by {@link CommitThenDieMain} under load,
     * header put back as the first test does (not named *.mv.db, which git ignores).
     */
    static final String STALE_HEADER_CHUNK_OVERWRITTEN =
            "kill-between-chunk-and-header-stale-header-chunk-overwritten.h2file";

    @TempDir
    Path tmp;

    @Test
    void aCommitKilledBetweenItsChunkAndItsHeaderIsNotDamage() throws Exception {
        Path dataDir = tmp.resolve("data");
        Database.openFile(dataDir).close(); // created and closed cleanly, as after a first normal run
        Path acked = tmp.resolve("acked");
        Path header = tmp.resolve("header");
        runChild(dataDir, acked, header, KillOutcome.NOTHING_ACKNOWLEDGED_LOST);
        Path file = dataDir.resolve("leasesync.mv.db");
        writeHeader(file, Files.readAllBytes(header));
        List<Integer> ids = ackedIds(acked);
        int last = ids.remove(ids.size() - 1); // its header write "never happened": not acknowledged

        List<Integer> stored;
        try (Database db = Database.openFile(dataDir)) {
            stored = probeIds(db);
        }
        assertThat(stored)
                .as("the earlier commits are there, the interrupted one is not")
                .containsExactlyElementsOf(ids)
                .doesNotContain(last);
    }

    @Test
    void theInterruptedCommitsChunkOverTheChunkTheStaleHeaderNamesIsNotDamage() throws Exception {
        Path dataDir = tmp.resolve("data");
        Files.createDirectories(dataDir);
        Path file = dataDir.resolve("leasesync.mv.db");
        try (InputStream in = getClass().getResourceAsStream(STALE_HEADER_CHUNK_OVERWRITTEN)) {
            Files.copy(in, file);
        }
        assertThat(DatabaseFileCheck.checksummed(Arrays.copyOf(CommitThenDieMain.readHeader(file), 4096)))
                .as("the header names chunk 0x7c at block 0x10")
                .containsEntry("chunk", "7c")
                .containsEntry("block", "10");
        byte[] atBlock = new byte[1024];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.read(ByteBuffer.wrap(atBlock), 0x10 * 4096L);
        }
        assertThat(DatabaseFileCheck.chunkHeader(atBlock))
                .as("block 0x10 holds chunk 0x7e")
                .containsEntry("chunk", "7e");
        assertThat(KillOutcome.openedVersion(file)).as("H2 opens 0x7d").isEqualTo(0x7d);

        List<Integer> stored;
        try (Database db = Database.openFile(dataDir)) {
            stored = probeIds(db);
        }
        assertThat(stored).containsExactly(1, 2, 3);
    }

    @Test
    void aKillAfterWhichH2WouldOpenAnOlderStateThanTheLastAcknowledgedIsRefusedAndTheFileLeftAsItWas()
            throws Exception {
        Path dataDir = tmp.resolve("data");
        Database.openFile(dataDir).close();
        runChild(dataDir, tmp.resolve("acked"), tmp.resolve("header"), KillOutcome.ACKNOWLEDGED_LOST);
        Path file = dataDir.resolve("leasesync.mv.db");
        writeHeader(file, Files.readAllBytes(tmp.resolve("header")));
        String before = DamagedFiles.sha256(file);

        assertThatThrownBy(() -> Database.openFile(dataDir).close())
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("the newest data in it cannot be read");
        assertThat(DamagedFiles.sha256(file)).isEqualTo(before);
    }

    @Test
    void aHeaderNamingAChunkThatCannotBeReadIsStillRefusedAndTheFileLeftAsItWas() throws Exception {
        Path dataDir = tmp.resolve("data");
        Database.openFile(dataDir).close();
        runChild(dataDir, tmp.resolve("acked"), tmp.resolve("header"), null);
        Path file = dataDir.resolve("leasesync.mv.db");
        // the chunk the header names (the newest saved state): its first block overwritten
        String header = new String(CommitThenDieMain.readHeader(file), StandardCharsets.ISO_8859_1);
        long block = Long.parseLong(header.replaceAll("(?s).*?block:([0-9a-f]+),.*", "$1"), 16);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[4096]), block * 4096);
        }
        String before = DamagedFiles.sha256(file);

        assertThatThrownBy(() -> Database.openFile(dataDir).close())
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("is damaged");
        assertThat(DamagedFiles.sha256(file)).isEqualTo(before);
    }

    /** Runs the child; {@code outcome} null: it copies the header before its last of 4 commits. */
    private void runChild(Path dataDir, Path acked, Path header, KillOutcome outcome) throws Exception {
        Path log = tmp.resolve("child.log");
        List<String> args = new ArrayList<>(List.of(
                dataDir.toString(),
                "1",
                outcome == null ? "4" : Integer.toString(COMMITS),
                acked.toString(),
                header.toString()));
        if (outcome != null) {
            args.add(outcome.name());
        }
        Process child = JavaProcess.start(CommitThenDieMain.class, log, args.toArray(String[]::new));
        assertThat(child.waitFor(2, TimeUnit.MINUTES)).as("child did not end").isTrue();
        assertThat(child.exitValue()).as(Files.readString(log)).isEqualTo(137);
    }

    private static List<Integer> ackedIds(Path acked) throws Exception {
        List<Integer> ids = new ArrayList<>();
        for (String line : Files.readAllLines(acked)) {
            ids.add(Integer.parseInt(line.substring("ACKED ".length())));
        }
        return ids;
    }

    private static List<Integer> probeIds(Database db) {
        return db.query("read the probe rows", c -> {
            List<Integer> ids = new ArrayList<>();
            try (var rs =
                    c.createStatement().executeQuery("SELECT id FROM crash_probe WHERE v = 'acked' ORDER BY id")) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
            return ids;
        });
    }

    private static void writeHeader(Path file, byte[] header) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(header), 0);
        }
    }
}
