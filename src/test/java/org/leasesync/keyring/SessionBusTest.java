package org.leasesync.keyring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the session bus is, for the keyring and the window's notifications alike. */
class SessionBusTest {

    @TempDir
    Path tmp;

    @Test
    void theAddressIsAPathSocketFromTheEnvironmentOrTheRuntimeDirectory() throws Exception {
        assertThat(SessionBus.address(Map.of("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")))
                .contains("unix:path=/run/user/1000/bus");
        assertThat(SessionBus.address(
                        Map.of("DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/tmp/dbus-x,guid=1;unix:path=/tmp/b,guid=1")))
                .contains("unix:path=/tmp/b,guid=1");
        // the JDK's sockets cannot reach the abstract namespace: no bus rather than a failure
        assertThat(SessionBus.address(Map.of("DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/tmp/dbus-x,guid=1")))
                .isEmpty();
        // set but blank (as a script clears it): as if not set, the runtime directory's socket
        Files.createFile(tmp.resolve("bus"));
        assertThat(SessionBus.address(Map.of("DBUS_SESSION_BUS_ADDRESS", " ", "XDG_RUNTIME_DIR", tmp.toString())))
                .contains("unix:path=" + tmp.resolve("bus"));
        assertThat(SessionBus.address(Map.of("XDG_RUNTIME_DIR", tmp.toString())))
                .contains("unix:path=" + tmp.resolve("bus"));
        assertThat(SessionBus.address(
                        Map.of("XDG_RUNTIME_DIR", tmp.resolve("none").toString())))
                .isEmpty();
        assertThat(SessionBus.address(Map.of())).isEmpty();
    }
}
