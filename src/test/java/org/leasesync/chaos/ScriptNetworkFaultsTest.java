package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's network faults become calls of net.sh's fault functions, with the instance number
 * and on/off words the script expects; a failing call is an error naming the call and its output.
 * (A stand-in script records its arguments: the real one needs root and namespaces, and is run by
 * scale/cluster.sh.)
 */
class ScriptNetworkFaultsTest {

    @TempDir
    Path dir;

    @Test
    void eachFaultCallsItsScriptFunction() throws IOException {
        Path calls = dir.resolve("calls.txt");
        Path script = script("echo \"$*\" >> '" + calls + "'\n[ \"$1\" = loss ] && echo iptables\nexit 0\n");
        ScriptNetworkFaults net = new ScriptNetworkFaults(script);
        assertThat(net.set(NetworkFaults.Kind.DB_CUT, 2, 0, true)).isEqualTo("db-cut");
        net.set(NetworkFaults.Kind.DB_CUT, 2, 0, false);
        net.set(NetworkFaults.Kind.CLIENT_CUT, 3, 0, true);
        net.set(NetworkFaults.Kind.LINK_DOWN, 1, 0, true);
        net.set(NetworkFaults.Kind.LINK_DOWN, 1, 0, false);
        net.set(NetworkFaults.Kind.DB_LINK_DOWN, 7, 0, true);
        assertThat(net.set(NetworkFaults.Kind.LOSS, 2, 25, true)).isEqualTo("iptables");
        net.set(NetworkFaults.Kind.LOSS, 2, 25, false);
        net.set(NetworkFaults.Kind.HOST_LOST, 3, 0, true);
        net.set(NetworkFaults.Kind.HOST_LOST, 3, 0, false);
        net.healAll();
        assertThat(Files.readAllLines(calls))
                .containsExactly(
                        "db-cut 2 on",
                        "db-cut 2 off",
                        "client-cut 3 on",
                        "link 1 down",
                        "link 1 up",
                        "db-link down",
                        "loss 2 25",
                        "loss 2 off",
                        "host-lost 3",
                        "host-back 3",
                        "heal-all");
    }

    @Test
    void aFailingCallIsAnErrorNamingTheCallAndWhatTheScriptSaid() throws IOException {
        Path script = script("echo 'iptables: No chain/target/match by that name.' >&2\nexit 4\n");
        assertThatThrownBy(() -> new ScriptNetworkFaults(script).set(NetworkFaults.Kind.CLIENT_CUT, 1, 0, true))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("client-cut 1 on")
                .hasMessageContaining("exit code 4")
                .hasMessageContaining("No chain/target/match");
    }

    private Path script(String body) throws IOException {
        Path p = dir.resolve("net.sh");
        Files.writeString(p, body);
        return p;
    }
}
