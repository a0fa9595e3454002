package org.leasesync.desktop.tray;

import java.util.Optional;

/**
 * The process's C environment, which the native libraries of the desktop (GTK, X) read, through libc
 * by JNA; Java's own {@link System#getenv} is a copy taken at start and does not see changes. Here,
 * where the package's JNA lives, for {@code desktop.fx} to set what GTK reads before JavaFX starts it.
 */
public final class NativeEnv {

    private NativeEnv() {}

    /**
     * Sets {@code name} to {@code value} unless it is set already. Call it while no other thread reads
     * the environment (before the toolkits start): libc's {@code setenv} is not safe against a
     * concurrent {@code getenv}. Never throws.
     *
     * @return whether {@code name} is set now (false as well when libc cannot be had through JNA)
     */
    public static boolean setIfUnset(String name, String value) {
        try {
            com.sun.jna.Function.getFunction("c", "setenv").invokeInt(new Object[] {name, value, 0});
            return get(name).isPresent();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** The value of {@code name} in the C environment; empty when unset or libc cannot be had. */
    public static Optional<String> get(String name) {
        try {
            return Optional.ofNullable(
                    com.sun.jna.Function.getFunction("c", "getenv").invokeString(new Object[] {name}, false));
        } catch (RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }
}
