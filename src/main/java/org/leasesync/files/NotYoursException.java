package org.leasesync.files;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A directory or file that belongs to another account: {@link OwnerOnlyFiles} neither uses nor
 * changes it, since its owner could read or replace whatever is written there.
 */
public final class NotYoursException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path path;
    private final String owner;
    private final String you;

    NotYoursException(Path path, String owner, String you) {
        super(path + " belongs to " + owner + ", not to you (" + you + ")");
        this.path = path;
        this.owner = owner;
        this.you = you;
    }

    /** The directory or file. */
    public Path path() {
        return path;
    }

    /** Its owner's name (or uid, when the account has no name). */
    public String owner() {
        return owner;
    }

    /** This process's account name, as the JVM knows it. */
    public String you() {
        return you;
    }
}
