package org.leasesync.store;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLNonTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
final class BreakingCommits extends WrappingDataSource {

    /** What happens to the transaction whose commit breaks. */
    enum Mode {
        LOST,
        APPLIED
    }

    private final AtomicReference<Mode> next = new AtomicReference<>();
    private final AtomicInteger commits = new AtomicInteger();

    BreakingCommits(DataSource driver) {
        super(driver);
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
    Connection wrap(Connection real) {
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
}
