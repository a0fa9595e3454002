package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * {@code kill -9} at every statement of every migration, from a data directory that holds data: a
 * child JVM upgrades a copy of one prepared old-schema directory and is killed right after statement
 * k ({@link MigrationProbe}), for k = 1..n; the next start must come up with the latest schema and
 * exactly what an upgrade that went straight through holds (every lease, run, record and unsent
 * edit). The client's database gets the whole matrix (from schema 1: every statement of V2; from
 * schema 2, with local records and unsent edits: every statement of V3 to the latest); the server's a
 * representative subset (the first, a middle and the last statement of each migration after V4: it
 * shares the rule and the code, {@code UpgradeCopy} under its data dir lock).
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
@ProcessTest
class UpgradeKillMatrixTest {

    @TempDir
    Path tmp;

    @Test
    void aClientUpgradeKilledAfterAnyStatementOfAnyMigrationComesBackWithEverythingAtTheLatestSchema()
            throws Exception {
        Path v2 = tmp.resolve("v2");
        OldSchemas.client(v2, 2);
        Matrix m = reference("client", v2);
        List<Integer> ks = new ArrayList<>();
        for (int k = 1; k <= m.statements.size(); k++) {
            ks.add(k);
        }
        assertThat(m.statements)
                .as("statements of V3..V%d", SqlDialect.LATEST_CLIENT_MIGRATION)
                .hasSizeGreaterThan(25);
        killAt("client", v2, m, ks);

        Path v1 = tmp.resolve("v1");
        OldSchemas.client(v1, 1);
        Matrix first = reference("client", v1);
        List<Integer> inV2 = new ArrayList<>();
        for (int k = 1; k <= first.statements.size(); k++) {
            if (first.statements.get(k - 1).equals("2")) {
                inV2.add(k);
            }
        }
        assertThat(inV2).isNotEmpty();
        killAt("client", v1, first, inV2);
    }

    @Test
    void aServerUpgradeKilledInTheMiddleOfItsMigrationsComesBackWithEverythingAtTheLatestSchema() throws Exception {
        Path v4 = tmp.resolve("server-v4");
        OldSchemas.server(v4, 4);
        Matrix m = reference("server", v4);
        List<Integer> ks = new ArrayList<>();
        String version = "";
        for (int k = 1; k <= m.statements.size(); k++) {
            boolean firstOfMigration = !m.statements.get(k - 1).equals(version);
            boolean lastOfMigration =
                    k == m.statements.size() || !m.statements.get(k).equals(m.statements.get(k - 1));
            version = m.statements.get(k - 1);
            if (firstOfMigration || lastOfMigration || k % 5 == 0) {
                ks.add(k);
            }
        }
        assertThat(ks).hasSizeGreaterThanOrEqualTo(8);
        killAt("server", v4, m, ks);
    }

    /** The statements (their migration's version, in order) and the snapshot of an upgrade that went through. */
    private record Matrix(List<String> statements, String snapshot) {}

    private Matrix reference(String kind, Path prepared) throws Exception {
        Path dir = copy(prepared, tmp.resolve(prepared.getFileName() + "-reference"));
        Path log = tmp.resolve(prepared.getFileName() + "-reference.log");
        Process p = start(kind, dir, log, Integer.MAX_VALUE);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(log)).isZero();
        List<String> statements = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("leasesync-migration-statement ")) {
                statements.add(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return new Matrix(statements, snapshot(kind, dir));
    }

    /** Each k on a copy of its own, a few at once (each is a child JVM, then a start in this JVM). */
    private void killAt(String kind, Path prepared, Matrix reference, List<Integer> ks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int k : ks) {
                results.add(pool.submit(() -> {
                    killAt(kind, prepared, reference, k);
                    return null;
                }));
            }
            for (Future<?> r : results) {
                try {
                    r.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Exception x) {
                        throw x;
                    }
                    throw new AssertionError(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void killAt(String kind, Path prepared, Matrix reference, int k) throws Exception {
        Path dir = copy(prepared, tmp.resolve(prepared.getFileName() + "-k" + k));
        Path log = tmp.resolve(prepared.getFileName() + "-k" + k + ".log");
        Process p = start(kind, dir, log, k);
        try {
            awaitLine(p, log, "leasesync-migration-paused " + k);
        } finally {
            p.destroyForcibly(); // SIGKILL right after statement k
        }
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(snapshot(kind, dir))
                .as(
                        "killed after statement %d (of V%s); log:%n%s",
                        k, reference.statements.get(k - 1), Files.readString(log))
                .isEqualTo(reference.snapshot);
        assertThat(Files.exists(dir.resolve(databaseName(kind) + ".mv.db.upgrade-copy")))
                .as("the copy is gone once the upgrade finished")
                .isFalse();
    }

    /** The next start, in this JVM: opens (restoring and upgrading as needed), then what the database holds. */
    private static String snapshot(String kind, Path dir) throws Exception {
        if (kind.equals("server")) {
            try (ServerDatabase db = ServerDatabase.open(new ServerDatabaseConfig.H2File(dir), "test");
                    Connection c = db.connection()) {
                return OldSchemas.snapshot(c);
            }
        }
        try (Database db = Database.openFile(dir, Duration.ofSeconds(30));
                Connection c = db.dataSource().getConnection()) {
            return OldSchemas.snapshot(c);
        }
    }

    private static String databaseName(String kind) {
        return kind.equals("server") ? "leasesync-server" : "leasesync";
    }

    private static Process start(String kind, Path dir, Path log, int pauseAfter) throws IOException {
        return JavaProcess.start(
                MigrateMain.class, log, kind, dir.toString(), String.valueOf(pauseAfter), "-1", "30000");
    }

    static void awaitLine(Process p, Path log, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readAllLines(log).contains(line)) {
                return;
            }
            if (!p.isAlive()) {
                throw new AssertionError("the child ended before '" + line + "': " + Files.readString(log));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no '" + line + "' within 60 s: " + Files.readString(log));
    }

    static Path copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
        return to;
    }
}
