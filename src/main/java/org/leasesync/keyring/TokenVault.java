package org.leasesync.keyring;

import java.util.Optional;

/**
 * A place that keeps session tokens: the desktop keyring or the fallback file. Implementations are
 * thread-safe; every method blocks (a D-Bus call, or a small file read or write), and none logs or
 * returns a token in a message.
 */
public interface TokenVault extends AutoCloseable {

    /** Where tokens are kept, for the user: {@code the desktop keyring (Secret Service)}, {@code the file …}. */
    String description();

    /** Which kind of place this is. */
    Place place();

    /**
     * Stores (or replaces) the token of {@code slot}.
     *
     * @throws KeyringException when it cannot be stored (the keyring is locked and was not unlocked, the
     *     file cannot be written), naming the place and why
     */
    void store(TokenSlot slot, String token);

    /**
     * The token of {@code slot}, if one is kept.
     *
     * @throws KeyringException when the place cannot be read
     */
    Optional<String> find(TokenSlot slot);

    /**
     * Removes the token of {@code slot}.
     *
     * @return whether one was there
     * @throws KeyringException when it cannot be removed
     */
    boolean remove(TokenSlot slot);

    /** Releases the bus connection, if any. Never throws. */
    @Override
    void close();

    /** The kinds of place. */
    enum Place {
        /** The desktop's keyring, through the Secret Service API. */
        KEYRING("keyring"),
        /** An owner-only file in the data directory. */
        FILE("file");

        private final String wireName;

        Place(String wireName) {
            this.wireName = wireName;
        }

        /** As the accounts file and {@code accounts --json} write it. */
        public String wireName() {
            return wireName;
        }

        /**
         * @throws IllegalArgumentException for an unknown name
         */
        public static Place parse(String text) {
            for (Place p : values()) {
                if (p.wireName.equals(text)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown token place '" + text + "'; expected keyring or file");
        }
    }
}
