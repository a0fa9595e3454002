package org.leasesync.store;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A driver's data source whose connections a test wraps (a proxy that counts or breaks commits);
 * everything else goes to the driver's own data source. Sits under the pool
 * ({@link Database#open(String, String, String, String, int, java.util.function.UnaryOperator)}), so the
 * database is the real one. Thread-safe if {@link #wrap} is.
 */
abstract class WrappingDataSource implements DataSource {

    private final DataSource driver;

    WrappingDataSource(DataSource driver) {
        this.driver = driver;
    }

    /** The connection the pool gets for the driver's {@code real} one. */
    abstract Connection wrap(Connection real);

    /** Calls {@code m} on {@code target}, throwing what it threw (not the reflection wrapper). */
    static Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(driver.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(driver.getConnection(user, password));
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
