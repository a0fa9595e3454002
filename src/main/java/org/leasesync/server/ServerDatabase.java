package org.leasesync.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's own H2 database: a HikariCP pool over an in-memory database unique to this
 * instance, or a file under a data directory; schema by Flyway from {@code classpath:db/server}.
 *
 * <p>Thread-safe. {@link #close()} shuts the database down (an in-memory one is gone after it).
 */
final class ServerDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerDatabase.class);
    static final String MIGRATIONS = "classpath:db/server";

    private final HikariDataSource pool;

    private ServerDatabase(HikariDataSource pool) {
        this.pool = pool;
    }

    /** Opens (creating if needed) and migrates the database. Blocks while migrating. */
    static ServerDatabase open(Path dataDir) {
        String url = dataDir == null
                ? "jdbc:h2:mem:leasesync-server-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"
                : "jdbc:h2:file:" + fileBase(dataDir) + ";DB_CLOSE_ON_EXIT=FALSE";
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername("sa");
        hc.setPassword("");
        hc.setMaximumPoolSize(8);
        hc.setPoolName("sync-server-db");
        hc.setConnectionTimeout(5_000);
        HikariDataSource ds = new HikariDataSource(hc);
        try {
            Flyway.configure().dataSource(ds).locations(MIGRATIONS).load().migrate();
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
        log.info("server database ready at {}", url);
        return new ServerDatabase(ds);
    }

    private static String fileBase(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data dir " + dataDir, e);
        }
        return dataDir.toAbsolutePath().resolve("leasesync-server").toString();
    }

    DataSource dataSource() {
        return pool;
    }

    Connection connection() throws SQLException {
        return pool.getConnection();
    }

    @Override
    public void close() {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException e) {
            log.debug("database shutdown: {}", e.toString());
        } finally {
            pool.close();
        }
    }
}
