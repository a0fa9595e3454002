package org.leasesync.store;

import org.leasesync.lease.StoreException;

/**
 * A database whose schema was last migrated by a newer leasesync than this one: it is refused before
 * anything is changed in it, since this version's SQL does not know the newer tables and columns. The
 * command line exits with 1 and prints the message; the window shows it.
 */
public final class NewerSchemaException extends StoreException {
    private static final long serialVersionUID = 1L;

    private final int found;
    private final int known;

    /**
     * @param what how to name the database ("this data directory", "the server database …")
     * @param found the highest schema version recorded in the database
     * @param known the highest this program knows
     */
    public NewerSchemaException(String what, int found, int known) {
        super(what + " was last used by a newer leasesync (schema " + found + "; this one knows up to schema " + known
                + "); install that version or newer. Nothing was changed.");
        this.found = found;
        this.known = known;
    }

    /** The schema version recorded in the database. */
    public int found() {
        return found;
    }

    /** The highest schema version this program knows. */
    public int known() {
        return known;
    }
}
