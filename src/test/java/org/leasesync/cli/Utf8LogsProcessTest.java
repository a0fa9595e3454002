package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * A real child JVM in an emptied environment (as {@code env -i}) with {@code LANG=zh_CN.UTF-8}, a
 * locale the C library of this machine has not generated (the JVM's default charset is then ASCII and
 * its locale en_US): the log file and the console get UTF-8 bytes for '—' and Chinese, and the
 * window's language is Chinese. The child runs with the production {@code logback.xml}.
 */
@ProcessTest
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class Utf8LogsProcessTest {

    static final String MARK = "utf8-log-check";

    @TempDir
    Path tmp;

    @Test
    void logFilesAndConsoleAreUtf8AndTheLanguageIsChineseWithoutAGeneratedLocale() throws Exception {
        Path dir = tmp.resolve("data");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                java,
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-Dlogback.configurationFile=logback.xml",
                "-cp",
                JavaProcess.classPath(),
                LogLineMain.class.getName(),
                dir.toString());
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().put("LANG", "zh_CN.UTF-8");
        Path out = tmp.resolve("out");
        Path err = tmp.resolve("err");
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(Files.readString(err, StandardCharsets.ISO_8859_1))
                .isZero();

        byte[] console = Files.readAllBytes(err);
        assertThat(new String(console, StandardCharsets.UTF_8))
                .contains("error — 同步失败 " + MARK)
                .doesNotContain("\uFFFD");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir.resolve("logs"))) {
            files = s.toList();
        }
        assertThat(files).hasSize(1);
        String file = new String(Files.readAllBytes(files.get(0)), StandardCharsets.UTF_8);
        assertThat(file)
                .contains("info — 租约已续期 " + MARK)
                .contains("error — 同步失败 " + MARK)
                .doesNotContain("\uFFFD")
                .doesNotContain("? ??");
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).contains("language=zh-CN");
    }
}
