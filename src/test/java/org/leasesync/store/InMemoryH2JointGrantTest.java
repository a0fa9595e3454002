package org.leasesync.store;

import java.util.function.UnaryOperator;
import javax.sql.DataSource;

class InMemoryH2JointGrantTest extends JointGrantContractTest {
    @Override
    Database open(UnaryOperator<DataSource> wrap) {
        String name = "joint-" + System.nanoTime();
        return Database.open(
                "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
                "sa",
                "",
                "in-memory database " + name,
                8,
                wrap);
    }
}
