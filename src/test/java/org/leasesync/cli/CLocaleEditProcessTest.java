package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * {@code leasesync edit} in a real child JVM started in a C/POSIX locale (an environment emptied as
 * by {@code env -i}, then {@code LANG=C}, {@code LC_ALL=C} or nothing): Chinese record ids and
 * payloads typed on the command line are stored as typed, and two different Chinese ids stay two
 * records. The Chinese bytes reach the child through the shell ({@code printf} octal escapes), so
 * the test JVM's own locale cannot change them on the way.
 */
@ProcessTest
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CLocaleEditProcessTest {

    @TempDir
    Path tmp;

    static final String ID_ONE = "课程一";
    static final String ID_TWO = "课程二";
    static final String PAYLOAD_ONE = "{\"title\":\"代数—第一章\"}";
    static final String PAYLOAD_TWO = "{\"title\":\"几何—第二章\"}";

    @ParameterizedTest
    @ValueSource(strings = {"LANG=C", "LC_ALL=C", "none"})
    void chineseIdsAndPayloadsAreStoredAsTypedAndStayTwoRecords(String locale) throws Exception {
        Path dir = tmp.resolve("data");
        Map<String, String> env = new LinkedHashMap<>();
        if (!locale.equals("none")) {
            String[] kv = locale.split("=");
            env.put(kv[0], kv[1]);
        }
        assertThat(edit(dir, env, ID_ONE, PAYLOAD_ONE)).startsWith("queued edit of " + ID_ONE);
        assertThat(edit(dir, env, ID_TWO, PAYLOAD_TWO)).startsWith("queued edit of " + ID_TWO);

        Map<String, String> stored = new LinkedHashMap<>();
        try (LocalStore store = LocalStore.openFile(dir)) {
            store.database().query("read the outbox", c -> {
                try (var rs = c.createStatement().executeQuery("SELECT record_id, payload FROM outbox ORDER BY seq")) {
                    while (rs.next()) {
                        stored.put(rs.getString(1), rs.getString(2));
                    }
                }
                return null;
            });
        }
        assertThat(stored).containsExactly(Map.entry(ID_ONE, PAYLOAD_ONE), Map.entry(ID_TWO, PAYLOAD_TWO));
        assertThat(String.join("", stored.keySet()) + String.join("", stored.values()))
                .doesNotContain("\uFFFD");
    }

    /** Runs {@code leasesync edit} in a child JVM with only {@code env}; returns its stdout as UTF-8. */
    private String edit(Path dir, Map<String, String> env, String id, String payload)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String script = "exec \"$0\" -Xmx128m -XX:TieredStopAtLevel=1 -cp \"$1\" org.leasesync.Launcher edit"
                + " --data-dir \"$2\" --user alice --scope course_sync"
                + " --id \"$(printf '" + octal(id) + "')\" --payload \"$(printf '" + octal(payload) + "')\"";
        List<String> cmd =
                new ArrayList<>(List.of("/bin/sh", "-c", script, java, JavaProcess.classPath(), dir.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(tmp, "edit", ".out");
        Path err = Files.createTempFile(tmp, "edit", ".err");
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("edit finished").isTrue();
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue())
                .as("exit code; stdout: %s stderr: %s", stdout, Files.readString(err, StandardCharsets.UTF_8))
                .isZero();
        return stdout;
    }

    /** {@code s}'s UTF-8 bytes as printf octal escapes (ASCII only; % and \ and ' escaped too). */
    static String octal(String s) {
        StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            b.append('\\').append(String.format("%03o", x & 0xff));
        }
        return b.toString();
    }
}
