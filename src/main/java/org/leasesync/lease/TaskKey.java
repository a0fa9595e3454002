package org.leasesync.lease;

import java.util.Objects;

/**
 * The identity of one business task: a user id and a {@link Scope}, written {@code userId|scope}
 * (e.g. {@code alice|course_sync}). Deduplication is by task key, never by trigger; a different
 * user or a different scope is a different task (docs/architecture.md, "Vocabulary"). A task key is a
 * {@link LeaseKey}; the
 * other kind is a {@link JobKey}, whose written form never contains {@code |}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param userId non-blank, at most 200 characters, no {@code |}, no control characters and no
 *     surrounding whitespace
 * @param scope the data domain
 */
public record TaskKey(String userId, Scope scope) implements LeaseKey {

    /** Longest accepted user id, in characters. */
    public static final int MAX_USER_ID_LENGTH = 200;

    /**
     * @throws IllegalArgumentException if the user id breaks a rule above; the message names the
     *     bad value and the rule
     * @throws NullPointerException if {@code scope} is null
     */
    public TaskKey {
        validateUserId(userId);
        Objects.requireNonNull(scope, "scope must not be null");
    }

    /**
     * Checks a user id against the rules of this record.
     *
     * @return the same id, for chaining
     * @throws IllegalArgumentException naming the bad value and the broken rule
     */
    public static String validateUserId(String userId) {
        if (userId == null || userId.isBlank()) {
            throw new IllegalArgumentException("user id must not be blank (got " + quote(userId) + ")");
        }
        if (!userId.equals(userId.strip())) {
            throw new IllegalArgumentException("user id " + quote(userId) + " has surrounding whitespace");
        }
        if (userId.length() > MAX_USER_ID_LENGTH) {
            throw new IllegalArgumentException("user id is " + userId.length() + " characters long; at most "
                    + MAX_USER_ID_LENGTH + " are allowed");
        }
        for (int i = 0; i < userId.length(); i++) {
            char c = userId.charAt(i);
            if (c == '|') {
                throw new IllegalArgumentException("user id " + quote(userId) + " must not contain '|'");
            }
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(
                        "user id " + quote(userId) + " contains a control character at index " + i);
            }
        }
        return userId;
    }

    /** Convenience factory: {@code TaskKey.of("alice", "course_sync")}. */
    public static TaskKey of(String userId, String scope) {
        return new TaskKey(userId, Scope.parse(scope));
    }

    /**
     * Parses the written form {@code userId|scope}.
     *
     * @throws IllegalArgumentException if the text has no {@code |}, or either part is invalid
     */
    public static TaskKey parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("task key must not be null; expected 'userId|scope'");
        }
        int bar = text.lastIndexOf('|');
        if (bar < 0) {
            throw new IllegalArgumentException(
                    "task key '" + text + "' has no '|'; expected 'userId|scope', e.g. 'alice|course_sync'");
        }
        return new TaskKey(text.substring(0, bar), Scope.parse(text.substring(bar + 1)));
    }

    /** The written form {@code userId|scope}. */
    @Override
    public String asString() {
        return userId + "|" + scope.wireName();
    }

    @Override
    public String toString() {
        return asString();
    }

    private static String quote(String s) {
        return s == null ? "null" : "'" + s.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
