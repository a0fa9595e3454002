package org.leasesync.cli;

import java.time.Duration;
import org.leasesync.lease.TaskRegistry;
import picocli.CommandLine.Option;

/** Registry settings shared by the commands that take leases. */
public final class RegistryOptions {

    @Option(
            names = "--lease-ttl",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_LEASE_TTL:-60s}",
            description =
                    "Lease time-to-live (e.g. 60s, 2m). Renewed every TTL/3. Default: $LEASESYNC_LEASE_TTL, else 60s.")
    Duration leaseTtl;

    /**
     * The validated TTL.
     *
     * @throws IllegalArgumentException if out of range (100ms..1d)
     */
    public Duration leaseTtl() {
        try {
            return TaskRegistry.validateTtl(leaseTtl);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--lease-ttl (or LEASESYNC_LEASE_TTL) must be between 100ms and 1d, got "
                    + DurationConverter.format(leaseTtl));
        }
    }
}
