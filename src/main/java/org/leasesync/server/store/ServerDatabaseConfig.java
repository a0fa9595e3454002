package org.leasesync.server.store;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import org.leasesync.server.ReferenceServer;

/**
 * Which database a {@link ReferenceServer} keeps its data in. Immutable values that validate in
 * their constructors, naming the bad value.
 *
 * <ul>
 *   <li>{@link H2InMemory}: an H2 database in memory, unique to the server instance, gone when it
 *       closes (the default);</li>
 *   <li>{@link H2File}: an H2 file in a data directory, one server per directory
 *       ({@code serve --data-dir});</li>
 *   <li>{@link Postgres}: a shared PostgreSQL database that any number of server instances use
 *       at once ({@code serve --db}).</li>
 * </ul>
 */
public sealed interface ServerDatabaseConfig {

    /** Default connections per instance on PostgreSQL ({@code --db-pool-size}). */
    int DEFAULT_POOL_SIZE = 10;
    /** Largest accepted pool size. */
    int MAX_POOL_SIZE = 200;

    /** In-memory H2. */
    static ServerDatabaseConfig inMemory() {
        return new H2InMemory();
    }

    /** A short description for logs and errors; never contains a password. */
    String describe();

    /** H2 in memory, unique to one server instance. */
    record H2InMemory() implements ServerDatabaseConfig {
        @Override
        public String describe() {
            return "H2 in memory";
        }
    }

    /**
     * H2 in a file under {@code dataDir} (created if needed).
     *
     * @param dataDir the directory for {@code leasesync-server.mv.db} and {@code server.lock}
     */
    record H2File(Path dataDir) implements ServerDatabaseConfig {
        /**
         * @throws NullPointerException if {@code dataDir} is null
         * @throws IllegalArgumentException if it is blank
         */
        public H2File {
            Objects.requireNonNull(dataDir, "dataDir");
            if (dataDir.toString().isBlank()) {
                throw new IllegalArgumentException("dataDir must not be blank; use H2InMemory for in-memory");
            }
        }

        @Override
        public String describe() {
            return "H2 file in " + dataDir;
        }
    }

    /**
     * A PostgreSQL database shared by any number of server instances.
     *
     * @param jdbcUrl {@code jdbc:postgresql://HOST[:PORT]/DATABASE[?PARAMS]}; must not carry a
     *     password (it would be visible to anyone who can list processes)
     * @param user the database user; not blank
     * @param password the user's password; may be empty (e.g. trust authentication), not null
     * @param poolSize connections this instance keeps open, {@code 1..}{@link #MAX_POOL_SIZE}
     */
    record Postgres(String jdbcUrl, String user, String password, int poolSize) implements ServerDatabaseConfig {

        private static final String PREFIX = "jdbc:postgresql:";

        /**
         * @throws NullPointerException if a component is null
         * @throws IllegalArgumentException naming the bad value
         */
        public Postgres {
            Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(password, "password");
            if (!jdbcUrl.startsWith(PREFIX) || jdbcUrl.length() == PREFIX.length()) {
                throw new IllegalArgumentException(
                        "the database URL must look like jdbc:postgresql://HOST:PORT/DATABASE" + " but was '"
                                + withoutQuery(jdbcUrl) + "'");
            }
            if (hasParameter(jdbcUrl, "password")) {
                throw new IllegalArgumentException("the database URL " + withoutQuery(jdbcUrl) + " carries a password "
                        + "parameter; give the password in LEASESYNC_DB_PASSWORD or a password file instead, so that it "
                        + "is not visible in the process list");
            }
            if (user.isBlank()) {
                throw new IllegalArgumentException("the database user must not be blank");
            }
            if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
                throw new IllegalArgumentException(
                        "the database pool size must be 1.." + MAX_POOL_SIZE + " but was " + poolSize);
            }
        }

        /** The URL without its parameters, e.g. {@code jdbc:postgresql://db:5432/sync}. */
        public String safeUrl() {
            return withoutQuery(jdbcUrl);
        }

        @Override
        public String describe() {
            return "PostgreSQL " + safeUrl() + " as " + user;
        }

        /** Like the record's, with the password masked. */
        @Override
        public String toString() {
            return "Postgres[jdbcUrl=" + safeUrl() + ", user=" + user + ", password=***, poolSize=" + poolSize + "]";
        }

        private static String withoutQuery(String url) {
            int q = url.indexOf('?');
            return q < 0 ? url : url.substring(0, q);
        }

        private static boolean hasParameter(String url, String name) {
            int q = url.indexOf('?');
            if (q < 0) {
                return false;
            }
            for (String pair : url.substring(q + 1).split("&")) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                if (key.trim().toLowerCase(Locale.ROOT).equals(name)) {
                    return true;
                }
            }
            return false;
        }
    }
}
