/**
 * The server's database (its own H2, or a PostgreSQL shared by several instances) and what is
 * stored in it: records and their history, idempotency keys and claims, fencing tokens, tokens,
 * the audit log, statistics, and the instance and data-directory locks.
 *
 * <p>May import: {@code server.protocol}, {@code store} (dialect and schema version), JDBC,
 * HikariCP, Flyway. Never {@code server.http}.
 */
package org.leasesync.server.store;
