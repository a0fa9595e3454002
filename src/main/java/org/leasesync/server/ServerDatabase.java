package org.leasesync.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
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
    private final DataDirLock lock;

    private ServerDatabase(HikariDataSource pool, DataDirLock lock) {
        this.pool = pool;
        this.lock = lock;
    }

    /**
     * Opens (creating if needed) and migrates the database. Blocks while migrating.
     *
     * @throws IllegalStateException if it cannot be opened (e.g. locked by another process) or migrated
     * @throws UncheckedIOException if the data dir cannot be created
     */
    static ServerDatabase open(Path dataDir) {
        DataDirLock lock = dataDir == null ? null : DataDirLock.acquire(dataDir);
        try {
            return open(dataDir, lock);
        } catch (RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            throw e;
        }
    }

    private static ServerDatabase open(Path dataDir, DataDirLock lock) {
        String url = dataDir == null
                ? "jdbc:h2:mem:leasesync-server-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"
                : "jdbc:h2:file:" + fileBase(dataDir) + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername("sa");
        hc.setPassword("");
        hc.setMaximumPoolSize(8);
        hc.setPoolName("sync-server-db");
        hc.setConnectionTimeout(5_000);
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(hc);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot open the server database " + url + " (is another server "
                    + "using this data dir?): " + rootMessage(e), e);
        }
        try {
            Flyway.configure().dataSource(ds).locations(MIGRATIONS).load().migrate();
        } catch (RuntimeException e) {
            ds.close();
            throw new IllegalStateException("cannot migrate the server database " + url + ": " + rootMessage(e), e);
        }
        log.info("server database ready at {}", url);
        return new ServerDatabase(ds, lock);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static String fileBase(Path dataDir) {
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
            if (lock != null) {
                lock.close();
            }
        }
    }
}
