/**
 * The client's storage in SQL, on H2 or PostgreSQL through HikariCP with Flyway migrations: the
 * lease store, the run store and run history, local records and the outbox (and the conflict copies
 * resolving keeps, {@link org.leasesync.store.ConflictCopies}), each write fenced by
 * {@link org.leasesync.store.JdbcGuard}; {@link org.leasesync.store.Database} (the pool, its
 * transactions, and opening a data directory's file) and what a failure means for the user.
 *
 * <p>May import: {@code lease}, {@code run}, {@code sync} (its ports), {@code protocol}, {@code store.h2}, JDBC,
 * HikariCP, Flyway, H2. Never HTTP, a server, a front end or the client composition.
 */
package org.leasesync.store;
