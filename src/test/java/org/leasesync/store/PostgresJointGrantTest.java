package org.leasesync.store;

import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.leasesync.testing.Postgres;

/** On a real PostgreSQL (a fresh database per test), with the client's schema for PostgreSQL. */
class PostgresJointGrantTest extends JointGrantContractTest {
    @Override
    Database open(UnaryOperator<DataSource> wrap) {
        Postgres.Db db = Postgres.newDatabase();
        return Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4, wrap);
    }
}
