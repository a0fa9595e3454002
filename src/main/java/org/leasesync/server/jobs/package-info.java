/**
 * The server's periodic jobs (expire idempotency keys, prune the audit log, purge tombstones,
 * release stale claims) as registry users: each run holds the lease of its job key and fences its
 * writes, so one instance of a cluster runs a job at a time.
 *
 * <p>May import: {@code lease}, {@code store} (lease store and guard), JDBC, Jackson. Never the
 * server around it.
 */
package org.leasesync.server.jobs;
