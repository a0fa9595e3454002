/**
 * Runs of task keys: the coordinator that decides what a trigger gets (a new run, a join, a
 * follow-up, a skip), starts runs under a lease, records their stages, ends them and schedules
 * retries; checkpoints and the recovery decision (restart, resume, skip, ask) read from them; the
 * run store SPI ({@link org.leasesync.run.RunStore} for the coordinator's fenced writes,
 * {@link org.leasesync.run.RunHistory} for reads).
 *
 * <p>May import: the JDK and {@code lease}.
 */
package org.leasesync.run;
