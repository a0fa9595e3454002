package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import picocli.CommandLine;

@PostgresTest
class ServeCommandTest {

    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        return runWith(Map.of(), args);
    }

    private static Run runWith(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new ServeCommand(env));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--port=abc             | '--port'",
                "--port=70000           | 70000",
                "--seed=lots            | 'lots'",
                "--fault=explode=1      | explode=1",
                "--key-retention=soon   | 'soon'",
                "--key-retention=0s     | keyRetention",
                "--jobs=maybe           | --jobs must be on or off but was 'maybe'",
                "--job-interval=vacuum=1m | unknown job 'vacuum'; known jobs: expire-idempotency-keys, prune-audit",
                "--job-interval=prune-audit | expected NAME=DURATION or NAME=off but was 'prune-audit'",
                "--job-interval=prune-audit=10ms | the interval of job prune-audit must be between 100ms and 30d (or off)",
                "--job-interval=prune-audit=often | 'often' is not a duration",
                "--job-lease-ttl=50ms   | job lease TTL: lease TTL must be between 100ms and 1 day",
                "--audit-retention=0s   | audit retention must be positive",
                "--tombstone-retention=0s | tombstone retention must be positive",
                "--session-idle=0s      | sessionIdle must be positive",
                "--session-idle=later   | 'later'",
                "--tls-cert=/nonexistent/cert.pem | --tls-cert needs --tls-key",
                "--no-such-option       | --no-such-option"
            })
    void badOptionsAreAUsageErrorWithExitCode2(String arg, String expected) {
        Run r = run(arg);

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(expected).contains("Usage: serve");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void printsAddressFirstThenTheDemosPasswordsAndTokensAndServesUntilStopped() throws Exception {
        ServeCommand serve = new ServeCommand();
        CommandLine cmd = new CommandLine(serve);
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit =
                    pool.submit(() -> cmd.execute("--port", "0", "--seed", "demo", "--fault", "throttle=0"));
            awaitOutput(out, "token admin ", exit);
            List<String> lines = out.toString().lines().toList();
            assertThat(lines).hasSize(7);
            assertThat(lines.get(0)).matches("listening on http://127\\.0\\.0\\.1:\\d+");
            assertThat(lines.get(1)).matches("password alice \\S{16,}");
            assertThat(lines.get(2)).matches("password bob \\S{16,}");
            assertThat(lines.get(3)).matches("password admin \\S{16,}");
            assertThat(lines.get(4)).matches("token alice \\S{43}");
            assertThat(lines.get(5)).matches("token bob \\S{43}");
            assertThat(lines.get(6)).matches("token admin \\S{43}");

            String baseUrl = lines.get(0).substring("listening on ".length());
            String aliceToken = lines.get(4).split(" ")[2];
            HttpResponse<String> pull = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(baseUrl + "/v1/users/alice/scopes/course_sync/changes"))
                                    .header("Authorization", "Bearer " + aliceToken)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(pull.statusCode()).isEqualTo(200);
            assertThat(pull.body()).contains("Linear Algebra");
            HttpResponse<String> signIn = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sessions"))
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"bob\",\"password\":\""
                                            + lines.get(2).split(" ")[2] + "\"}"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(signIn.statusCode()).as(signIn.body()).isEqualTo(201);

            serve.stop();
            assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void auditOptionSwitchesTheAuditLogOnAndItRecordsRequests() throws Exception {
        ServeCommand serve = new ServeCommand();
        CommandLine cmd = new CommandLine(serve);
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit = pool.submit(() -> cmd.execute("--port", "0", "--seed", "demo", "--audit"));
            awaitOutput(out, "token admin ", exit);
            List<String> lines = out.toString().lines().toList();
            String baseUrl = lines.get(0).substring("listening on ".length());
            String aliceToken = lines.get(4).split(" ")[2];
            String adminToken = lines.get(6).split(" ")[2];
            HttpClient http = HttpClient.newHttpClient();
            http.send(
                    HttpRequest.newBuilder(URI.create(baseUrl + "/v1/users/alice/scopes/course_sync/changes"))
                            .header("Authorization", "Bearer " + aliceToken)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            HttpResponse<String> audit = http.send(
                    HttpRequest.newBuilder(URI.create(baseUrl + "/v1/admin/audit"))
                            .header("Authorization", "Bearer " + adminToken)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(audit.statusCode()).isEqualTo(200);
            assertThat(audit.body()).contains("\"op\":\"pull\"").contains("\"pathUser\":\"alice\"");
            serve.stop();
            assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--db=jdbc:postgresql://127.0.0.1:1/x --data-dir=/tmp/x | exclude each other",
                "--db=jdbc:mysql://127.0.0.1/x                           | jdbc:postgresql://HOST:PORT/DATABASE",
                "--db=jdbc:postgresql://127.0.0.1:1/x?password=secret    | password",
                "--db=jdbc:postgresql://127.0.0.1:1/x --db-pool-size=0   | pool size must be 1..200 but was 0",
                "--db-pool-size=5                                         | --db-pool-size needs --db",
                "--db-password-file=/tmp/pw                               | --db-password-file needs --db",
                "--db=jdbc:postgresql://127.0.0.1:1/x --db-password-file=/nonexistent/pw | /nonexistent/pw"
            })
    void badDatabaseOptionsAreAUsageErrorWithExitCode2(String args, String expected) {
        Run r = runWith(Map.of("LEASESYNC_DB_USER", "sync"), args.trim().split("\\s+"));

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(expected).contains("Usage: serve").doesNotContain("secret");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void theDatabaseUserMustComeFromTheEnvironmentAndThePasswordOnlyOnce(@TempDir Path dir) throws Exception {
        Path pw = Files.writeString(dir.resolve("pw"), "from-file\n");

        Run noUser = runWith(Map.of(), "--db", "jdbc:postgresql://127.0.0.1:1/x");
        Run twice = runWith(
                Map.of("LEASESYNC_DB_USER", "sync", "LEASESYNC_DB_PASSWORD", "from-env"),
                "--db",
                "jdbc:postgresql://127.0.0.1:1/x",
                "--db-password-file",
                pw.toString());

        assertThat(noUser.exitCode()).isEqualTo(2);
        assertThat(noUser.err()).contains("LEASESYNC_DB_USER");
        assertThat(twice.exitCode()).isEqualTo(2);
        assertThat(twice.err())
                .contains("given twice")
                .doesNotContain("from-env")
                .doesNotContain("from-file");
    }

    @Test
    void anUnreachableDatabaseIsOnePlainLineAndExitCode1(@TempDir Path dir) throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Path pw = Files.writeString(dir.resolve("pw"), "s3cret-from-file\n");

        Run r = runWith(
                Map.of("LEASESYNC_DB_USER", "sync", "LEASESYNC_DB_PASSWORD_FILE", pw.toString()),
                "--port",
                "0",
                "--db",
                "jdbc:postgresql://127.0.0.1:" + closedPort + "/sync");

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().lines().toList())
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .startsWith("serve: cannot start the server: cannot connect to the server database PostgreSQL "
                                + "jdbc:postgresql://127.0.0.1:" + closedPort + "/sync as sync")
                        .doesNotContain("s3cret")
                        .doesNotContain("\tat "));
    }

    @Test
    void servesFromPostgresqlWithCredentialsFromTheEnvironment() throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        ServeCommand serve = new ServeCommand(db.env());
        CommandLine cmd = new CommandLine(serve);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit = pool.submit(
                    () -> cmd.execute("--port", "0", "--seed", "demo", "--db", db.jdbcUrl(), "--db-pool-size", "2"));
            awaitOutput(out, "token admin ", exit);
            List<String> lines = out.toString().lines().toList();
            assertThat(lines).hasSize(7);
            String baseUrl = lines.get(0).substring("listening on ".length());
            HttpResponse<String> health = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(baseUrl + "/health"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"database\":\"postgresql\"");
            assertThat(err.toString())
                    .startsWith("serve: instance ")
                    .contains("on PostgreSQL " + db.jdbcUrl().replaceAll("\\?.*", "") + " as " + Postgres.USER);
            serve.stop();
            assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withoutTheDemoItPrintsTheAddressAndNoSecret() throws Exception {
        ServeCommand serve = new ServeCommand();
        CommandLine cmd = new CommandLine(serve);
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit = pool.submit(() -> cmd.execute("--port", "0"));
            awaitOutput(out, "\n", exit);
            List<String> lines = out.toString().lines().toList();
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).matches("listening on http://127\\.0\\.0\\.1:\\d+");
            serve.stop();
            assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
            assertThat(out.toString().lines().toList()).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void helpListsTheAuditOption() {
        Run r = run("--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--audit");
    }

    /**
     * Waits until {@code out} holds {@code marker}; fails at once, with what was printed, if the
     * command ended first. The bound only catches a hang: starting a server takes what the machine
     * gives it (Argon2id hashes of the demo passwords among it).
     */
    private static void awaitOutput(StringWriter out, String marker, Future<Integer> exit) throws Exception {
        long hang = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!out.toString().contains(marker)) {
            if (exit.isDone()) {
                throw new AssertionError(
                        "serve ended (" + exit.get() + ") before printing " + marker.strip() + "; it printed: " + out);
            }
            if (System.nanoTime() > hang) {
                throw new AssertionError("serve printed no " + marker.strip() + " in 3 minutes; it printed: " + out);
            }
            Thread.sleep(10);
        }
    }
}
