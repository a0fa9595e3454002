package org.leasesync.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;

/**
 * The desktop backend's settings the window's and the tray process's tests start it with: a data
 * directory of the test's own on the embedded demo server, short HTTP timeouts, no retries.
 */
public final class TestAppSettings {

    private TestAppSettings() {}

    /**
     * @param dataDir the data directory (created by the backend when missing)
     * @param scheduleInterval the timer's interval
     * @param time the time source of the runs
     */
    public static Backend.AppSettings of(Path dataDir, Duration scheduleInterval, TimeSource time) {
        return new Backend.AppSettings(
                dataDir,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Duration.ofSeconds(60),
                new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20)),
                scheduleInterval,
                Duration.ofMinutes(1),
                RetryPolicy.NONE,
                time);
    }
}
