package org.leasesync.store;

import java.nio.file.Path;
import org.leasesync.lease.StoreException;
import org.leasesync.store.h2.DatabaseFileCheck;

/**
 * A child JVM for {@link FullCheckMemoryTest}: runs the start-up check ({@link DatabaseFileCheck#check}) on the
 * file named by its one argument and prints {@code check: RESULT}, or {@code check failed: MESSAGE} and exits 3.
 */
final class FullCheckMain {

    private FullCheckMain() {}

    public static void main(String[] args) {
        try {
            System.out.println("check: " + DatabaseFileCheck.check(Path.of(args[0])));
            System.exit(0);
        } catch (StoreException e) {
            System.out.println("check failed: " + e.getMessage());
            System.exit(3);
        }
    }
}
