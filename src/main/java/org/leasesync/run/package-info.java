/**
 * Runs of task keys: the coordinator that decides what a trigger gets (a new run, a join, a
 * follow-up, a skip), starts runs under a lease, records their stages, ends them and schedules
 * retries; checkpoints and the recovery decision (restart, resume, skip, ask) read from them; the
 * run store SPI ({@link org.leasesync.run.RunStore} for the coordinator's fenced writes,
 * {@link org.leasesync.run.RunHistory} for reads).
 *
 * <p>Nullness as in {@code lease}: non-null unless marked {@link org.jspecify.annotations.Nullable},
 * {@link java.util.Optional} for absent results of public methods.
 *
 * <p>May import: the JDK, {@code lease} and JSpecify's nullness annotations.
 */
@NullMarked
package org.leasesync.run;

import org.jspecify.annotations.NullMarked;
