/**
 * The server's database (its own H2, or a PostgreSQL shared by several instances) and what is
 * stored in it: records and their history, idempotency keys and claims, fencing tokens, accounts
 * (with their Argon2id password hashes), sessions and the sign-in limits, the audit log,
 * statistics, the instance and data-directory locks, and the data directory's owner-only files.
 *
 * <p>May import: {@code server.protocol}, {@code store} (dialect and schema version), {@code files}
 * (the owner-only data dir, the client's rules), JDBC, HikariCP, Flyway, spring-security-crypto
 * (password hashing). Never {@code server.http}.
 */
package org.leasesync.server.store;
