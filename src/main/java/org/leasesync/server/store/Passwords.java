package org.leasesync.server.store;

import java.util.concurrent.Semaphore;
import org.springframework.security.crypto.argon2.Argon2PasswordEncoder;

/**
 * Account passwords as Argon2id hashes in the PHC string format
 * ({@code $argon2id$v=19$m=19456,t=2,p=1$SALT$HASH}), through spring-security-crypto's
 * {@link Argon2PasswordEncoder} on Bouncy Castle's Argon2: 16 random bytes of salt, a 32-byte
 * hash, 19 MiB of memory, 2 passes, 1 lane — OWASP's recommended minimum for Argon2id. A stored
 * hash carries its own parameters, so hashes made with other ones still verify.
 *
 * <p>Thread-safe. Every call blocks for one hash (tens of milliseconds) and takes 19 MiB while it
 * runs; at most {@link #CONCURRENT} run at once in a process (the others wait), so a burst of
 * sign-ins cannot take more memory than that, whatever the number of request threads. Passwords
 * are never logged or stored in clear.
 */
public final class Passwords {

    /** Hashes computed at once, at most. */
    static final int CONCURRENT = 2;
    /** Longest accepted password, in characters (docs/protocol.md §12). */
    public static final int MAX_LENGTH = 1024;

    private static final Argon2PasswordEncoder ENCODER = new Argon2PasswordEncoder(16, 32, 1, 19_456, 2);
    private static final Semaphore RUNNING = new Semaphore(CONCURRENT, true);
    /**
     * Compared with when there is no hash to compare with, so that a refusal takes as long either way:
     * a hash of a fixed phrase with the same parameters as {@link #ENCODER}'s, written out rather than
     * made when the class loads, so that no process pays a hash it may never compare with (its salt
     * need not be secret or random: no account has it).
     */
    static final String DUMMY =
            "$argon2id$v=19$m=19456,t=2,p=1$N0rap1Jqf8LDqy0L0u1SyQ$" + "S6EcEzRJJCf3arSSzGxqaotoZ/CZNWUKE9OkOteK/Ao";

    private Passwords() {}

    /**
     * The Argon2id hash of {@code password} with a new random salt.
     *
     * @throws IllegalArgumentException if the password is empty or longer than {@link #MAX_LENGTH}
     * @throws InterruptedException if interrupted while waiting for a turn
     */
    public static String hash(CharSequence password) throws InterruptedException {
        requireValid(password);
        RUNNING.acquire();
        try {
            return ENCODER.encode(password);
        } finally {
            RUNNING.release();
        }
    }

    /**
     * Whether {@code password} matches {@code storedHash}. With a null hash (no such account, or an
     * account without a password) it compares with a fixed dummy hash and answers false, taking as
     * long as a real comparison.
     *
     * @throws InterruptedException if interrupted while waiting for a turn
     */
    public static boolean matches(CharSequence password, String storedHash) throws InterruptedException {
        RUNNING.acquire();
        try {
            if (storedHash == null) {
                ENCODER.matches(password, DUMMY);
                return false;
            }
            return ENCODER.matches(password, storedHash);
        } finally {
            RUNNING.release();
        }
    }

    /**
     * Checks a new password's length.
     *
     * @throws IllegalArgumentException if it is null, empty or longer than {@link #MAX_LENGTH}
     */
    public static void requireValid(CharSequence password) {
        if (password == null || password.length() == 0) {
            throw new IllegalArgumentException("the password must not be empty");
        }
        if (password.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "the password must be at most " + MAX_LENGTH + " characters but has " + password.length());
        }
    }
}
