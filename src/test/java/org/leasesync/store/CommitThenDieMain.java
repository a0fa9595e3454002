package org.leasesync.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Child process for {@link KillAfterAcknowledgedCommitTest}: opens the database in a data directory
 * as leasesync does, commits {@code count} rows one transaction each (updating one row in between,
 * so there is freed space for H2 to reuse), appends {@code ACKED id} to a file after each commit
 * returned, and then ends at once with no clean-up — as {@code kill -9} right after an acknowledged
 * commit would.
 *
 * <p>Args: data directory, first id, count, acknowledgement file, and optionally a file to copy
 * the store header (the file's first two blocks) into just before the last commit — so a test can
 * put it back and get the file a kill between H2's chunk write and its header write leaves.
 */
public final class CommitThenDieMain {

    private CommitThenDieMain() {
    }

    public static void main(String[] args) throws IOException {
        Path dataDir = Path.of(args[0]);
        int first = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        Path acked = Path.of(args[3]);
        Path headerBeforeLast = args.length > 4 ? Path.of(args[4]) : null;
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
            if (headerBeforeLast != null && id == first + count - 1) {
                try (FileChannel ch = FileChannel.open(dataDir.resolve("leasesync.mv.db"), StandardOpenOption.READ)) {
                    ByteBuffer header = ByteBuffer.allocate(2 * 4096);
                    while (header.hasRemaining() && ch.read(header, header.position()) > 0) {
                        // read both header blocks
                    }
                    Files.write(headerBeforeLast, header.array());
                }
            }
            db.transaction("insert an acknowledged row", c -> {
                try (var ps = c.prepareStatement("INSERT INTO crash_probe (id, v) VALUES (?, 'acked')")) {
                    ps.setInt(1, i);
                    ps.executeUpdate();
                }
                return null;
            });
            Files.writeString(acked, "ACKED " + id + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        }
        Runtime.getRuntime().halt(137);   // no shutdown hook, no close: like kill -9
    }
}
