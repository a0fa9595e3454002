package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.registry.StoreException;
import org.leasesync.testing.JavaProcess;

/**
 * The start-up check and the file a process killed in the middle of a commit leaves: H2 wrote the
 * commit's chunk into reused space, and the process died before H2 rewrote the store header to name
 * it. That commit never returned, H2 ignores the chunk, nothing acknowledged is lost: the file is
 * healthy and must open (the check used to refuse it as damaged, on every start). A file whose
 * header names a chunk H2 can no longer read is still refused.
 *
 * <p>Real child JVMs write the file ({@link CommitThenDieMain}); the header as it was before the last
 * commit is put back, which is the file the kill between the two writes leaves.
 */
class KillBetweenChunkAndHeaderTest {

    static final int COMMITS = 4;
    static final int MAX_ATTEMPTS = 10;

    @TempDir
    Path tmp;

    @Test
    void aCommitKilledBetweenItsChunkAndItsHeaderIsNotDamage() throws Exception {
        int produced = 0;
        for (int attempt = 0; attempt < MAX_ATTEMPTS && produced < 3; attempt++) {
            Path dataDir = tmp.resolve("data-" + attempt);
            Path acked = tmp.resolve("acked-" + attempt);
            Path header = tmp.resolve("header-" + attempt);
            Database.openFile(dataDir).close();
            runChild(dataDir, acked, header, attempt);
            Path file = dataDir.resolve("leasesync.mv.db");
            byte[] headerAfter = readHeader(file);
            byte[] headerBefore = Files.readAllBytes(header);
            if (Arrays.equals(headerAfter, headerBefore)) {
                continue;   // H2 did not need to rewrite the header for the last commit: not this case
            }
            writeHeader(file, headerBefore);
            long opened;
            try (MVStore store = new MVStore.Builder().fileName(file.toString()).readOnly().open()) {
                opened = store.getCurrentVersion();
            }
            List<Integer> ids = new ArrayList<>();
            for (String line : Files.readAllLines(acked)) {
                ids.add(Integer.parseInt(line.substring("ACKED ".length())));
            }
            int last = ids.remove(ids.size() - 1);   // its header write "never happened": not acknowledged

            List<Integer> stored;
            try (Database db = Database.openFile(dataDir)) {
                stored = probeIds(db);
            }
            assertThat(stored).as("attempt %d (H2 opened version %d): the earlier commits are there, the "
                    + "interrupted one is not", attempt, opened).containsExactlyElementsOf(ids).doesNotContain(last);
            produced++;
        }
        assertThat(produced).as("the file state was produced (the last commit went to reused space)")
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void aHeaderNamingAChunkThatCannotBeReadIsStillRefusedAndTheFileLeftAsItWas() throws Exception {
        Path dataDir = tmp.resolve("data");
        Database.openFile(dataDir).close();
        runChild(dataDir, tmp.resolve("acked"), tmp.resolve("header"), 0);
        Path file = dataDir.resolve("leasesync.mv.db");
        // the chunk the header names (the newest saved state): its first block overwritten
        String header = new String(readHeader(file), java.nio.charset.StandardCharsets.ISO_8859_1);
        long block = Long.parseLong(header.replaceAll("(?s).*?block:([0-9a-f]+),.*", "$1"), 16);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[4096]), block * 4096);
        }
        String before = DamagedFiles.sha256(file);

        assertThatThrownBy(() -> Database.openFile(dataDir).close()).isInstanceOf(StoreException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("is damaged");
        assertThat(DamagedFiles.sha256(file)).isEqualTo(before);
    }

    private void runChild(Path dataDir, Path acked, Path header, int n) throws Exception {
        Path log = tmp.resolve("child-" + n + ".log");
        Process child = JavaProcess.start(CommitThenDieMain.class, log, dataDir.toString(), "1",
                Integer.toString(COMMITS), acked.toString(), header.toString());
        assertThat(child.waitFor(2, TimeUnit.MINUTES)).as("child did not end").isTrue();
        assertThat(child.exitValue()).as(Files.readString(log)).isEqualTo(137);
    }

    private static List<Integer> probeIds(Database db) {
        return db.query("read the probe rows", c -> {
            List<Integer> ids = new ArrayList<>();
            try (var rs = c.createStatement().executeQuery("SELECT id FROM crash_probe WHERE v = 'acked' ORDER BY id")) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
            return ids;
        });
    }

    private static byte[] readHeader(Path file) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(2 * 4096);
            while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                // both header blocks
            }
            return b.array();
        }
    }

    private static void writeHeader(Path file, byte[] header) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(header), 0);
        }
    }
}
