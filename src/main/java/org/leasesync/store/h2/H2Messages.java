package org.leasesync.store.h2;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What H2's error messages say about its shared file database, where H2 gives no error code for
 * it. Stateless and thread-safe.
 */
public final class H2Messages {

    /**
     * A remote session's transaction that the host process rolled back as it closed the database
     * (its shutdown hook closes every session, the remote ones too): H2 reports it as a general
     * error (50000) naming the transaction, "Transaction 1 is closed" or "Transaction 1 has status
     * ROLLED_BACK, not OPEN", whichever state the statement found it in.
     */
    private static final Pattern CUT_TRANSACTION =
            Pattern.compile("transaction \\d+ (is closed|has status (rolled_back|closed), not open)");

    private H2Messages() {}

    /**
     * Whether an error message (of an {@link java.sql.SQLException}, a
     * {@link org.leasesync.lease.StoreException} or a run that ended with one) says that H2's shared
     * file database (automatic mixed mode) was briefly unreachable because its host process changed
     * — the one list of such messages, used wherever the work may be tried again. Met before the
     * commit was sent, each of them means that nothing of the transaction in flight was committed:
     * the connection broke, the database was closed, or the host rolled the transaction back.
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
                || m.contains("may be already in use")
                || CUT_TRANSACTION.matcher(m).find();
    }
}
