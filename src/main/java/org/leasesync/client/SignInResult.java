package org.leasesync.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a sign-in ended with ({@link AccountService#signIn}), as plain values a front end shows as
 * they are: each case has a {@link #message()} in English for the command line, and the values a
 * window needs to say it in its own words. Immutable.
 */
public sealed interface SignInResult {

    /** A plain sentence for the user, never a token or password. */
    String message();

    /**
     * Signed in: the token is kept and the account remembered.
     *
     * @param account the account as remembered
     * @param keptIn where the token is kept, for the user ("the desktop keyring (Secret Service)", "the
     *     owner-only file …")
     * @param notKeyringBecause when the token went to the file: why the keyring could not be used
     */
    record SignedIn(Account account, String keptIn, Optional<String> notKeyringBecause) implements SignInResult {
        public SignedIn {
            Objects.requireNonNull(account, "account");
            Objects.requireNonNull(keptIn, "keptIn");
            Objects.requireNonNull(notKeyringBecause, "notKeyringBecause");
        }

        @Override
        public String message() {
            return "signed in as " + account.name() + "; the session token is kept in " + keptIn;
        }
    }

    /** The server refused the user name or password (or the account is disabled: the server does not say which). */
    record WrongPassword(String server) implements SignInResult {
        @Override
        public String message() {
            return "wrong user name or password for " + server;
        }
    }

    /**
     * Too many failed sign-ins for this user or from this address: even the right password is refused
     * until {@code retryAfter} has passed.
     *
     * @param retryAfter the server's {@code Retry-After}; empty when it sent none
     */
    record TooManyAttempts(String server, Optional<Duration> retryAfter) implements SignInResult {
        @Override
        public String message() {
            return "too many failed sign-ins at " + server + "; try again "
                    + retryAfter.map(d -> "in " + DurationText.format(d)).orElse("later");
        }
    }

    /** No server URL could be reached. @param detail which URLs and why */
    record Unreachable(String detail) implements SignInResult {
        @Override
        public String message() {
            return detail;
        }
    }

    /**
     * The server's certificate is not trusted.
     *
     * @param server the URL
     * @param sha256Fingerprint the certificate's SHA-256 fingerprint, {@code AB:CD:…}
     */
    record CertificateNotTrusted(String server, String sha256Fingerprint) implements SignInResult {
        @Override
        public String message() {
            return "the certificate of " + server + " is not trusted (SHA-256 fingerprint " + sha256Fingerprint
                    + "); if it is your server's, give its certificate (or its CA's) with --ca-file";
        }
    }

    /** Anything else: the server failed or answered something unexpected, the token could not be kept. */
    record Failed(String message) implements SignInResult {
        public Failed {
            Objects.requireNonNull(message, "message");
        }
    }
}
