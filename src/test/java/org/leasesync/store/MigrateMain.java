package org.leasesync.store;

import java.nio.file.Path;
import java.time.Duration;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.ServerDatabaseConfig;

/**
 * A child JVM that opens (and so upgrades) a client or server data directory, pausing in the middle of
 * a migration as {@link MigrationProbe} says: {@code client|server DIR PAUSE_AFTER_STATEMENT PAUSE_MILLIS
 * OPEN_TIMEOUT_MILLIS} (0 = no pause; -1 = pause until killed). Prints {@code opened} and exits 0, or
 * {@code refused: <message>} and exits 1.
 */
public final class MigrateMain {

    private MigrateMain() {}

    public static void main(String[] args) {
        int pauseAfter = Integer.parseInt(args[2]);
        long pauseMillis = Long.parseLong(args[3]);
        if (pauseAfter > 0) {
            System.setProperty(MigrationProbe.PAUSE_AFTER, String.valueOf(pauseAfter));
            if (pauseMillis >= 0) {
                System.setProperty(MigrationProbe.PAUSE_MILLIS, String.valueOf(pauseMillis));
            }
        }
        Path dir = Path.of(args[1]);
        Duration openTimeout = Duration.ofMillis(Long.parseLong(args[4]));
        try {
            if (args[0].equals("server")) {
                ServerDatabase.open(new ServerDatabaseConfig.H2File(dir), "migrate-main")
                        .close();
            } else {
                Database.openFile(dir, openTimeout).close();
            }
            System.out.println("opened");
            System.exit(0);
        } catch (LeasesyncException | IllegalStateException e) {
            System.out.println("refused: " + e.getMessage());
            System.exit(1);
        }
    }
}
