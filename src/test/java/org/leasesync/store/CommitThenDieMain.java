package org.leasesync.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.h2.mvstore.MVStore;

/**
 * Child process for {@link KillAfterAcknowledgedCommitTest}: opens the database in a data directory
 * as leasesync does, commits {@code count} rows one transaction each (updating one row in between,
 * so there is freed space for H2 to reuse), appends {@code ACKED id} to a file after each commit
 * returned, and then ends at once with no clean-up — as {@code kill -9} right after an acknowledged
 * commit would.
 *
 * <p>Args: data directory, first id, count, acknowledgement file, and optionally a file to copy
 * the store header (the file's first two blocks) into just before the last commit — so a test can
 * put it back and get the file a kill between H2's chunk write and its header write leaves — and
 * optionally a {@link KillOutcome}: then the child commits until a row's commit made H2 rewrite the
 * store header and a kill between that commit's chunk write and its header write would have the
 * outcome asked for, copies the header as it was just before that commit and ends there (that row
 * is the last one acknowledged); exit code 3 when none of the {@code count} commits did.
 */
public final class CommitThenDieMain {

    private CommitThenDieMain() {}

    public static void main(String[] args) throws IOException {
        Path dataDir = Path.of(args[0]);
        int first = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        Path acked = Path.of(args[3]);
        Path headerBeforeLast = args.length > 4 ? Path.of(args[4]) : null;
        KillOutcome wanted = args.length > 5 ? KillOutcome.valueOf(args[5]) : null;
        Path file = dataDir.resolve("leasesync.mv.db");
        Database db = Database.openFile(dataDir);
        db.query("prepare", c -> {
            try (var st = c.createStatement()) {
                // H2 keeps freed space for RETENTION_TIME (45 s) before reusing it; a process that has
                // run that long, or whose clock is ahead of the file's, reuses it at once. 0 makes
                // every run of this test do what those do.
                st.execute("SET RETENTION_TIME 0");
                st.execute("CREATE TABLE IF NOT EXISTS crash_probe (id INT PRIMARY KEY, v VARCHAR(2000))");
                st.execute("MERGE INTO crash_probe KEY (id) VALUES (0, 'churn')");
            }
            return null;
        });
        for (int id = first; id < first + count; id++) {
            int i = id;
            db.transaction("churn", c -> {
                try (var ps = c.prepareStatement("UPDATE crash_probe SET v = ? WHERE id = 0")) {
                    ps.setString(1, "churn " + i + " " + "x".repeat(1500));
                    ps.executeUpdate();
                }
                return null;
            });
            byte[] headerBefore = readHeader(file); // nothing else writes: WRITE_DELAY=0, no background writer
            if (headerBeforeLast != null && wanted == null && id == first + count - 1) {
                Files.write(headerBeforeLast, headerBefore);
            }
            Path acknowledgedState =
                    wanted == null ? null : copy(file, null, dataDir.resolveSibling("acknowledged-state.mv.db"));
            db.transaction("insert an acknowledged row", c -> {
                try (var ps = c.prepareStatement("INSERT INTO crash_probe (id, v) VALUES (?, 'acked')")) {
                    ps.setInt(1, i);
                    ps.executeUpdate();
                }
                return null;
            });
            Files.writeString(
                    acked,
                    "ACKED " + id + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
            if (wanted != null && !Arrays.equals(readHeader(file), headerBefore)) {
                Path killed = copy(file, headerBefore, dataDir.resolveSibling("killed-state.mv.db"));
                KillOutcome outcome = KillOutcome.of(killed, acknowledgedState);
                Files.delete(killed);
                if (outcome == wanted) {
                    Files.delete(acknowledgedState);
                    Files.write(headerBeforeLast, headerBefore);
                    Runtime.getRuntime().halt(137);
                }
            }
            if (acknowledgedState != null) {
                Files.delete(acknowledgedState);
            }
        }
        if (wanted != null) {
            System.out.println("no commit of " + count + " left the file " + wanted
                    + (wanted == KillOutcome.ACKNOWLEDGED_LOST
                            ? " (if H2 no longer loses an acknowledged commit in this window, the case is gone)"
                            : ""));
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }
        Runtime.getRuntime().halt(137); // no shutdown hook, no close: like kill -9
    }

    /** Both store header blocks (the file's first 8 KiB) as they are on disk now. */
    static byte[] readHeader(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(2 * 4096);
            while (header.hasRemaining() && ch.read(header, header.position()) > 0) {
                // read both header blocks
            }
            return header.array();
        }
    }

    /** A copy of {@code file} (with {@code header} as its first blocks when not null) at {@code to}. */
    private static Path copy(Path file, byte[] header, Path to) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (header != null) {
            System.arraycopy(header, 0, bytes, 0, header.length);
        }
        return Files.write(to, bytes);
    }

    /**
     * What H2 makes of the file a kill between a commit's chunk write and its store-header write
     * leaves. Which it is depends on where H2 put the chunk: over freed space that the stale header or
     * the chain of chunks written after it still pointed at, or elsewhere.
     */
    enum KillOutcome {
        /** H2 opens the state the last acknowledged commit saved: the file is healthy. */
        NOTHING_ACKNOWLEDGED_LOST,
        /**
         * H2 opens an older state: the interrupted commit's chunk overwrote a freed chunk that H2
         * needs to reach the acknowledged one (seen with H2 2.4.240: the chunk the stale header names,
         * or one in the chain after it). A real kill at that instant loses acknowledged commits.
         */
        ACKNOWLEDGED_LOST,
        /** H2 opens the interrupted commit's state (its chunk is reachable without the header). */
        INTERRUPTED_COMMIT_READ;

        /**
         * @param killed the file as the kill leaves it
         * @param acknowledged the file as it was when the last commit before returned
         */
        static KillOutcome of(Path killed, Path acknowledged) {
            int c = Long.compare(openedVersion(killed), openedVersion(acknowledged));
            return c == 0 ? NOTHING_ACKNOWLEDGED_LOST : c < 0 ? ACKNOWLEDGED_LOST : INTERRUPTED_COMMIT_READ;
        }

        /** The version H2's read-only open of {@code file} ends at. */
        static long openedVersion(Path file) {
            try (MVStore store =
                    new MVStore.Builder().fileName(file.toString()).readOnly().open()) {
                return store.getCurrentVersion();
            }
        }
    }
}
