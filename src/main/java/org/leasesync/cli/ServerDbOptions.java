package org.leasesync.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.leasesync.server.store.ServerDatabaseConfig;
import picocli.CommandLine.Option;

/**
 * The options that choose the server's database, shared by {@code serve} and {@code users}:
 * {@code --data-dir DIR} (H2 file), {@code --db JDBC_URL} (PostgreSQL; credentials from the
 * environment or a password file), {@code --db-password-file}, {@code --db-pool-size}. A picocli
 * mixin; not thread-safe (filled in once by the parser).
 */
final class ServerDbOptions {

    /** The environment variables of {@code --db}'s credentials. */
    static final String DB_USER = "LEASESYNC_DB_USER";

    static final String DB_PASSWORD = "LEASESYNC_DB_PASSWORD";
    static final String DB_PASSWORD_FILE = "LEASESYNC_DB_PASSWORD_FILE";

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Directory for the server's H2 database file (kept owner-only); in-memory when absent "
                    + "(and no --db).")
    Path dataDir;

    @Option(
            names = "--db",
            paramLabel = "JDBC_URL",
            description = "A PostgreSQL database shared by any number of server instances, "
                    + "jdbc:postgresql://HOST:PORT/DB (no password in it). User and password from "
                    + "$LEASESYNC_DB_USER and $LEASESYNC_DB_PASSWORD or a password file. Excludes --data-dir.")
    String db;

    @Option(
            names = "--db-password-file",
            paramLabel = "PATH",
            description = "With --db: read the database password from this file (one trailing newline is "
                    + "ignored). Default: $LEASESYNC_DB_PASSWORD_FILE.")
    Path dbPasswordFile;

    @Option(
            names = "--db-pool-size",
            paramLabel = "N",
            description = "With --db: database connections this instance keeps, 1.."
                    + ServerDatabaseConfig.MAX_POOL_SIZE + " (default: " + ServerDatabaseConfig.DEFAULT_POOL_SIZE
                    + "). Instances x pool size must stay under PostgreSQL's max_connections.")
    Integer dbPoolSize;

    /**
     * The database the options choose: PostgreSQL with {@code --db}, else H2 in {@code --data-dir},
     * else H2 in memory.
     *
     * @param env where the credentials of {@code --db} are read from
     * @throws IllegalArgumentException naming the bad option, variable or value
     */
    ServerDatabaseConfig database(Map<String, String> env) {
        if (db == null) {
            if (dbPasswordFile != null || dbPoolSize != null) {
                throw new IllegalArgumentException(
                        (dbPasswordFile != null ? "--db-password-file" : "--db-pool-size") + " needs --db");
            }
            return dataDir == null ? ServerDatabaseConfig.inMemory() : new ServerDatabaseConfig.H2File(dataDir);
        }
        if (dataDir != null) {
            throw new IllegalArgumentException("--db and --data-dir exclude each other: --db keeps the data in "
                    + "PostgreSQL, --data-dir in an H2 file");
        }
        String user = env.get(DB_USER);
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("--db needs the database user in " + DB_USER);
        }
        return new ServerDatabaseConfig.Postgres(
                db, user, password(env), dbPoolSize == null ? ServerDatabaseConfig.DEFAULT_POOL_SIZE : dbPoolSize);
    }

    /** The password from a file (option, else variable) or from the variable; empty if none is given. */
    private String password(Map<String, String> env) {
        Path file = dbPasswordFile != null
                ? dbPasswordFile
                : env.containsKey(DB_PASSWORD_FILE)
                                && !env.get(DB_PASSWORD_FILE).isBlank()
                        ? Path.of(env.get(DB_PASSWORD_FILE))
                        : null;
        String inEnv = env.get(DB_PASSWORD);
        if (file == null) {
            return inEnv == null ? "" : inEnv;
        }
        if (inEnv != null) {
            throw new IllegalArgumentException("the database password is given twice, in " + DB_PASSWORD
                    + " and in the file " + file + "; give only one");
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            return text.endsWith("\r\n")
                    ? text.substring(0, text.length() - 2)
                    : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the database password file " + file + ": " + e);
        }
    }
}
