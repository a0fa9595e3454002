package org.leasesync.store;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Breaks the next commit that reaches the real JDBC driver the way H2 does when the process hosting
 * a shared file exits during it: {@code Connection is broken: "session closed"} (SQLSTATE 90067, H2's
 * own code, as H2 gives it). {@link Mode#LOST}: the transaction is rolled back first, as the host
 * did; {@link Mode#APPLIED}: committed first, only the answer is lost. Every other call goes to the
 * real connection of the real database. Wraps the driver's data source under the pool
 * ({@link Database#open(String, String, String, String, int, java.util.function.UnaryOperator)}).
 *
 * <p>Thread-safe.
 */
final class BreakingCommits implements DataSource {

    /** What happens to the transaction whose commit breaks. */
    enum Mode {
        LOST,
        APPLIED
    }

    private final DataSource driver;
    private final AtomicReference<Mode> next = new AtomicReference<>();
    private final AtomicInteger commits = new AtomicInteger();

    BreakingCommits(DataSource driver) {
        this.driver = driver;
    }

    /** Breaks the next commit, in {@code mode}. */
    void breakNextCommit(Mode mode) {
        next.set(mode);
    }

    /** Commits that reached the driver, broken ones included. */
    int commits() {
        return commits.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return breaking(driver.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return breaking(driver.getConnection(user, password));
    }

    private Connection breaking(Connection real) {
        return (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, m, args) -> {
                    if (m.getName().equals("commit")) {
                        commits.incrementAndGet();
                        Mode mode = next.getAndSet(null);
                        if (mode != null) {
                            if (mode == Mode.LOST) {
                                real.rollback();
                            } else {
                                real.commit();
                            }
                            throw new SQLNonTransientConnectionException(
                                    "Connection is broken: \"session closed\" [90067-240]", "90067", 90067);
                        }
                    }
                    return call(real, m, args);
                });
    }

    private static Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return driver.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        driver.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        driver.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return driver.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return driver.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return driver.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return driver.isWrapperFor(iface);
    }
}
