package org.leasesync.store;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * A test aid inside every migration: with the system property {@value #PAUSE_AFTER} set to k, after
 * each migration statement the process prints {@code leasesync-migration-statement n version V} on
 * stdout, and after statement k it prints {@code leasesync-migration-paused k} and waits — for
 * {@value #PAUSE_MILLIS} milliseconds when that is set (a slow migration), else until it is killed (a
 * kill at exactly statement k). Without the property it does nothing: production never sets it.
 *
 * <p>The count is per process, over every migration Flyway runs in it. Thread-safe.
 */
final class MigrationProbe implements Callback {

    /** The statement after which to pause, 1-based. */
    static final String PAUSE_AFTER = "leasesync.test.migration.pauseAfterStatement";
    /** How long to pause; without it the pause lasts until the process is killed. */
    static final String PAUSE_MILLIS = "leasesync.test.migration.pauseMillis";

    private static final AtomicInteger STATEMENTS = new AtomicInteger();

    private final Integer pauseAfter = Integer.getInteger(PAUSE_AFTER);

    @Override
    public boolean supports(Event event, Context context) {
        return pauseAfter != null && event == Event.AFTER_EACH_MIGRATE_STATEMENT;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        int n = STATEMENTS.incrementAndGet();
        String version = context.getMigrationInfo() == null
                ? "?"
                : String.valueOf(context.getMigrationInfo().getVersion());
        System.out.println("leasesync-migration-statement " + n + " version " + version);
        if (n != pauseAfter) {
            return;
        }
        System.out.println("leasesync-migration-paused " + n);
        System.out.flush();
        Long millis = Long.getLong(PAUSE_MILLIS);
        try {
            if (millis != null) {
                TimeUnit.MILLISECONDS.sleep(millis);
            } else {
                TimeUnit.DAYS.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String getCallbackName() {
        return "leasesync-migration-probe";
    }
}
