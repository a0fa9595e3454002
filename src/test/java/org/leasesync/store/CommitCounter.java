package org.leasesync.store;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Counts the commits that reach the real JDBC driver: every {@code Connection.commit()}, and every
 * write statement ({@code executeUpdate}, {@code execute}, {@code executeBatch}, {@code executeLargeUpdate})
 * run on a connection in auto-commit mode (each of those is its own committed transaction). Reads in
 * auto-commit mode ({@code executeQuery}) are not counted. Wraps the driver's data source under the
 * pool ({@link Database#open(String, String, String, String, int, java.util.function.UnaryOperator)});
 * the database is the real one.
 *
 * <p>Thread-safe.
 */
final class CommitCounter extends WrappingDataSource {

    private static final Set<String> WRITES =
            Set.of("executeUpdate", "execute", "executeBatch", "executeLargeUpdate", "executeLargeBatch");

    private final AtomicInteger commits = new AtomicInteger();

    CommitCounter(DataSource driver) {
        super(driver);
    }

    /** Run once, by the next write statement's thread, right after that statement returns. */
    private final java.util.concurrent.atomic.AtomicReference<Runnable> afterNextWrite =
            new java.util.concurrent.atomic.AtomicReference<>();

    /**
     * Runs {@code hook} once, right after the next write statement (of any connection) returns and
     * before its caller sees the result: e.g. a {@code ManualTime} jump, as a statement that waited
     * on a lock would take.
     */
    void afterNextWrite(Runnable hook) {
        afterNextWrite.set(hook);
    }

    /** Commits counted so far. */
    int commits() {
        return commits.get();
    }

    @Override
    Connection wrap(Connection real) {
        InvocationHandler h = new InvocationHandler() {
            @Override
            public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
                Object out = call(real, m, args);
                switch (m.getName()) {
                    case "commit" -> commits.incrementAndGet();
                    case "prepareStatement" -> out = statement(real, (Statement) out, PreparedStatement.class);
                    case "prepareCall" -> out = statement(real, (Statement) out, CallableStatement.class);
                    case "createStatement" -> out = statement(real, (Statement) out, Statement.class);
                    default -> {}
                }
                return out;
            }
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private Object statement(Connection real, Statement s, Class<?> type) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            boolean write = WRITES.contains(m.getName());
            boolean autoCommit = write && real.getAutoCommit();
            Object out = call(s, m, args);
            if (autoCommit) {
                commits.incrementAndGet();
            }
            Runnable hook = write ? afterNextWrite.getAndSet(null) : null;
            if (hook != null) {
                hook.run();
            }
            return out;
        });
    }
}
