package org.leasesync.store.h2;

import java.util.Locale;

/**
 * What H2's error messages say about its shared file database, where H2 gives no error code for
 * it. Stateless and thread-safe.
 */
public final class H2Messages {

    private H2Messages() {}

    /**
     * Whether an error message (of an {@link java.sql.SQLException}, a
     * {@link org.leasesync.lease.StoreException} or a run that ended with one) says that H2's shared
     * file database (automatic mixed mode) was briefly unreachable because its host process changed
     * — the one list of such messages, used wherever the work may be tried again.
     */
    public static boolean isHandover(String message) {
        String m = String.valueOf(message).toLowerCase(Locale.ROOT);
        return m.contains("connection is broken")
                || m.contains("already closed")
                || m.contains("connection is closed")
                || m.contains("not available")
                || m.contains("error opening database")
                || m.contains("lock file recently modified")
                || m.contains("locked by another process")
                || m.contains("may be already in use");
    }
}
