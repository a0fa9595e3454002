package org.leasesync.keyring;

/**
 * No Secret Service answers: no session bus, no keyring daemon on it, or a keyring without a
 * collection to keep a token in. Then a token goes to the owner-only {@link TokenFile} instead.
 */
public class KeyringUnavailableException extends KeyringException {
    private static final long serialVersionUID = 1L;

    public KeyringUnavailableException(String message) {
        super(message);
    }

    public KeyringUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
