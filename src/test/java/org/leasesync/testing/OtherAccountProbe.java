package org.leasesync.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.stream.Stream;

/**
 * What another account tries against a running client's data directory, run as that account
 * ({@code runuser -u nobody}) from a copy of this class and H2's jar only (the test class path is
 * not that account's to read). Prints one line per attempt, {@code <attempt>: ok ...} or
 * {@code <attempt>: refused <why>}, and always exits 0; the test judges the lines.
 *
 * <p>Arguments: the data directory, the port of the client's H2 server (found by the test, as an
 * attacker finds a listening port in {@code /proc/net/tcp}), and the server's key or {@code -}: with
 * a key the probe also connects with it — the control that shows the probe reaches the server and
 * that the key is all H2 asks for.
 */
public final class OtherAccountProbe {

    private OtherAccountProbe() {}

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        String port = args[1];
        String key = args[2];
        attempt(
                "read-lock-file",
                () -> "read "
                        + Files.readString(dir.resolve("leasesync.lock.db")).length() + " chars");
        attempt("list-data-dir", () -> {
            try (Stream<Path> s = Files.list(dir)) {
                return "listed " + s.count() + " entries";
            }
        });
        attempt(
                "read-database-file",
                () -> "read " + Files.readAllBytes(dir.resolve("leasesync.mv.db")).length + " bytes");
        attempt("open-file-url", () -> query("jdbc:h2:file:" + dir.resolve("leasesync") + ";AUTO_SERVER=TRUE"));
        attempt("tcp-guessed-key", () -> query("jdbc:h2:tcp://127.0.0.1:" + port + "/" + "0".repeat(43)));
        attempt("tcp-database-path", () -> query("jdbc:h2:tcp://127.0.0.1:" + port + "/" + dir.resolve("leasesync")));
        if (!key.equals("-")) {
            attempt("tcp-with-the-key", () -> query("jdbc:h2:tcp://127.0.0.1:" + port + "/" + key));
        }
        System.out.flush();
    }

    private static String query(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                ResultSet r = c.createStatement()
                        .executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'OUTBOX'")) {
            r.next();
            return "connected, outbox tables: " + r.getInt(1);
        }
    }

    private interface Attempt {
        String run() throws Exception;
    }

    private static void attempt(String name, Attempt a) {
        try {
            System.out.println(name + ": ok " + a.run());
        } catch (Exception e) {
            String why = e instanceof SQLException s
                    ? s.getErrorCode() + " " + firstLine(s.getMessage())
                    : e.getClass().getSimpleName() + " " + firstLine(String.valueOf(e.getMessage()));
            System.out.println(name + ": refused " + why);
        }
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
