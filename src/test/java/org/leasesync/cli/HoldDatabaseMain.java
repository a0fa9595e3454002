package org.leasesync.cli;

import java.nio.file.Path;
import org.leasesync.store.LocalStore;

/**
 * A child process for {@link FrozenHolderTest}: opens the data directory (so it becomes the host
 * of the shared database), prints {@code READY}, and keeps it open until its stdin closes.
 */
public final class HoldDatabaseMain {

    public static void main(String[] args) throws Exception {
        try (LocalStore store = LocalStore.openFile(Path.of(args[0]))) {
            store.leases().readAll();
            System.out.println("READY");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until the test closes our stdin (or kills us)
            }
        }
    }
}
