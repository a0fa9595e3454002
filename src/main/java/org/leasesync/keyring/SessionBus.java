package org.leasesync.keyring;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the user's session D-Bus is. The keyring (the Secret Service) and the window's desktop
 * notifications both connect to it, so both look it up here; it sits with the keyring, the lower of
 * the two packages that talk D-Bus, and is plain JDK code (a command without a bus never loads
 * dbus-java for it). Stateless.
 */
public final class SessionBus {

    /** Why there is no address, for a message to the user. */
    public static final String NONE = "DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus";

    private SessionBus() {}

    /**
     * The session bus address: {@code DBUS_SESSION_BUS_ADDRESS}, else {@code $XDG_RUNTIME_DIR/bus} when
     * that socket exists. Of a list of addresses, the first {@code unix:path=} one (the JDK's sockets
     * cannot reach the abstract namespace, {@code unix:abstract=}). Pure but for the file check.
     *
     * @param env the environment to read ({@link System#getenv()} for this process)
     * @return the address, or empty with nothing to connect to
     */
    public static Optional<String> address(Map<String, String> env) {
        String a = env.get("DBUS_SESSION_BUS_ADDRESS");
        if (a != null && !a.isBlank()) {
            for (String one : a.split(";")) {
                if (one.trim().startsWith("unix:path=")) {
                    return Optional.of(one.trim());
                }
            }
            return Optional.empty();
        }
        String runtime = env.get("XDG_RUNTIME_DIR");
        if (runtime != null && !runtime.isBlank() && Files.exists(Path.of(runtime, "bus"))) {
            return Optional.of("unix:path=" + Path.of(runtime, "bus"));
        }
        return Optional.empty();
    }
}
