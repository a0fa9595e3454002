package org.leasesync.lease;

/**
 * The identity of one job (a periodic piece of work of the sync server, such as expiring
 * idempotency keys), written {@code job:name}, e.g. {@code job:expire-idempotency-keys}. A job key
 * is a {@link LeaseKey}: at most one owner holds its lease at a time, with the same grant, renewal,
 * takeover and fencing rules as a {@link TaskKey}. It has no user, no scope, no runs and no
 * checkpoints in the client's sense.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name 1 to {@value #MAX_NAME_LENGTH} characters of lower-case ASCII letters, digits, {@code -},
 *     {@code _} and {@code .}, starting with a letter or a digit (so never blank, never with
 *     {@code |}, whitespace or control characters, and never ambiguous with a task key)
 */
public record JobKey(String name) implements LeaseKey {

    /** What every written job key starts with. */
    public static final String PREFIX = "job:";

    /** Longest accepted job name, in characters. */
    public static final int MAX_NAME_LENGTH = 100;

    /**
     * @throws IllegalArgumentException if the name breaks a rule above; the message names the bad
     *     value and the rule
     */
    public JobKey {
        validateName(name);
    }

    /** Convenience factory: {@code JobKey.of("expire-idempotency-keys")}. */
    public static JobKey of(String name) {
        return new JobKey(name);
    }

    /**
     * Checks a job name against the rules of this record.
     *
     * @return the same name, for chaining
     * @throws IllegalArgumentException naming the bad value and the broken rule
     */
    public static String validateName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("job name must not be blank (got " + quote(name) + ")");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(
                    "job name is " + name.length() + " characters long; at most " + MAX_NAME_LENGTH + " are allowed");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean letterOrDigit = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (i == 0 && !letterOrDigit) {
                throw new IllegalArgumentException(
                        "job name " + quote(name) + " must start with a lower-case letter or a digit");
            }
            if (!letterOrDigit && c != '-' && c != '_' && c != '.') {
                throw new IllegalArgumentException("job name " + quote(name) + " has '" + printable(c) + "' at index "
                        + i + "; allowed are a-z, 0-9, '-', '_' and '.'");
            }
        }
        return name;
    }

    /**
     * Parses the written form {@code job:name}.
     *
     * @throws IllegalArgumentException if the text does not start with {@code job:} or the name is invalid
     */
    public static JobKey parse(String text) {
        if (text == null || !text.startsWith(PREFIX)) {
            throw new IllegalArgumentException("job key " + quote(text)
                    + " does not start with 'job:'; expected 'job:name', e.g. 'job:expire-idempotency-keys'");
        }
        return new JobKey(text.substring(PREFIX.length()));
    }

    /** The written form {@code job:name}. */
    @Override
    public String asString() {
        return PREFIX + name;
    }

    @Override
    public String toString() {
        return asString();
    }

    private static String printable(char c) {
        return Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }

    private static String quote(String s) {
        return s == null ? "null" : "'" + s.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
