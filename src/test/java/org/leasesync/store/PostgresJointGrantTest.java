package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** On a real PostgreSQL (a fresh database per test), with the client's schema for PostgreSQL. */
@PostgresTest
class PostgresJointGrantTest extends JointGrantContractTest {

    private Postgres.Db pg;

    @Override
    Database open(UnaryOperator<DataSource> wrap) {
        pg = Postgres.newDatabase();
        return Database.open(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + pg.name(), 4, wrap);
    }

    /**
     * PostgreSQL aborts a whole transaction on a failed statement. A joint grant queued behind another
     * transaction's row lock (a stopped process) gives up after the lock timeout; that must answer
     * "held" like every other grant, not fail the joint transaction's later read with 25P02.
     * Takes two lock timeouts (the first write, then the write of a key the read shows free).
     */
    @Test
    void aJointGrantThatTimesOutOnTheRowLockAnswersHeldAndTheKeyIsGrantableAfterwards() throws Exception {
        a.release(a.tryAcquire(KEY).orElseThrow()); // the row exists, free, epoch 1
        AtomicInteger ran = new AtomicInteger();
        try (Connection stopped = DriverManager.getConnection(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)) {
            stopped.setAutoCommit(false);
            try (PreparedStatement ps = stopped.prepareStatement("SELECT epoch FROM lease FOR UPDATE")) {
                ps.executeQuery().close();
            }
            Optional<TaskRegistry.Joint<Integer>> answer =
                    b.tryAcquireJointly(KEY, store.runs(), "test start", (l, tx) -> ran.incrementAndGet());
            assertThat(answer).as("a lock timeout is 'held'").isEmpty();
            stopped.rollback();
        }
        assertThat(ran).hasValue(0);
        assertThat(b.lease(KEY).orElseThrow().isHeld()).isFalse();
        TaskRegistry.Joint<Integer> joint = b.tryAcquireJointly(
                        KEY, store.runs(), "test start", (l, tx) -> ran.incrementAndGet())
                .orElseThrow();
        assertThat(joint.lease().fence().epoch()).isEqualTo(2);
        assertThat(ran).hasValue(1);
    }
}
