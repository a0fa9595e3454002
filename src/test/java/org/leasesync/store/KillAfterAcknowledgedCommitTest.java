package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.store.h2.DatabaseFileCheck;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * A commit that returned survives the process being killed right after it: the next start finds the
 * file intact (the start-up check does not refuse it) and every acknowledged row is there.
 *
 * <p>Found by a 1,000-round chaos run on H2 2.5.252: H2 wrote a commit into reused space at the
 * start of the file and then rewrote the store header naming the chunk before it, so after a
 * {@code kill -9} H2 fell back past the acknowledged commit, and {@link DatabaseFileCheck} rightly
 * refused the file as damaged, on every start. Real child JVMs, real files, several rounds on one
 * data directory.
 */
@ProcessTest
class KillAfterAcknowledgedCommitTest {

    static final int ROUNDS = 6;
    static final int COMMITS_PER_ROUND = 4;

    @TempDir
    Path tmp;

    @Test
    void everyAcknowledgedCommitSurvivesAKillRightAfterIt() throws Exception {
        Path dataDir = tmp.resolve("data");
        Database.openFile(dataDir).close(); // created and closed cleanly, as after a first normal run
        Path acked = tmp.resolve("acked");
        List<Integer> ackedIds = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            Path log = tmp.resolve("child-" + round + ".log");
            int first = 1 + round * COMMITS_PER_ROUND;
            Process child = JavaProcess.start(
                    CommitThenDieMain.class,
                    log,
                    dataDir.toString(),
                    Integer.toString(first),
                    Integer.toString(COMMITS_PER_ROUND),
                    acked.toString());
            assertThat(child.waitFor(2, TimeUnit.MINUTES))
                    .as("child %d did not end", round)
                    .isTrue();
            assertThat(child.exitValue())
                    .as("child %d: %s", round, Files.readString(log))
                    .isEqualTo(137);
            ackedIds.clear();
            for (String line : Files.readAllLines(acked)) {
                ackedIds.add(Integer.parseInt(line.substring("ACKED ".length())));
            }
            assertThat(ackedIds)
                    .as("round %d acknowledged its commits", round)
                    .hasSize((round + 1) * COMMITS_PER_ROUND);

            List<Integer> stored = new ArrayList<>();
            assertThatCode(() -> {
                        try (Database db = Database.openFile(dataDir)) {
                            stored.addAll(db.query("read the probe rows", c -> {
                                List<Integer> ids = new ArrayList<>();
                                try (var rs = c.createStatement()
                                        .executeQuery("SELECT id FROM crash_probe WHERE v = 'acked' ORDER BY id")) {
                                    while (rs.next()) {
                                        ids.add(rs.getInt(1));
                                    }
                                }
                                return ids;
                            }));
                        }
                    })
                    .as("round %d: the file after a kill right after an acknowledged commit opens", round)
                    .doesNotThrowAnyException();
            assertThat(stored)
                    .as("round %d: every acknowledged row is stored", round)
                    .containsExactlyElementsOf(ackedIds);
        }
    }
}
