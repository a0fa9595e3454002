package org.leasesync.desktop;

import java.time.Duration;

/**
 * One full collection once start-up has settled. The launcher's serial collector shrinks the heap
 * only in a full collection; without one, what start-up grew it by (class loading, the first syncs)
 * stays committed all day. With the launcher's {@code -XX:MaxHeapFreeRatio=30} the heap goes back to
 * its live size plus 30 % (docs/benchmarks.md). One pause of a few tens of milliseconds, on no user
 * action.
 */
public final class HeapSettle {

    private HeapSettle() {}

    /** Collects once, {@code delay} from now, on a daemon thread named {@code name}. Returns at once. */
    public static void after(Duration delay, String name) {
        Thread settle = new Thread(
                () -> {
                    try {
                        Thread.sleep(delay.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                    System.gc();
                    org.slf4j.LoggerFactory.getLogger(HeapSettle.class)
                            .debug("start-up settled: heap collected and shrunk");
                },
                name);
        settle.setDaemon(true);
        settle.start();
    }
}
