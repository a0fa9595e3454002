package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Arguments and input as UTF-8 whatever the locale: the JVM's ASCII reading of a C/POSIX locale is
 * replaced by the bytes of the command line, and bytes that are not UTF-8 are refused, never replaced.
 */
@Timeout(30)
class Utf8InputTest {

    /** The command line as /proc/PID/cmdline has it: each string NUL-terminated. */
    static byte[] cmdline(String... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String p : parts) {
            out.writeBytes(p.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    /** What the JVM makes of a UTF-8 argument in an ASCII locale: one U+FFFD per non-ASCII byte. */
    static String asAscii(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.US_ASCII);
    }

    @Test
    void chineseArgumentsReadInAnAsciiLocaleAreTakenFromTheCommandLineBytes() {
        String[] jvm = {"edit", "--id", asAscii("课程一"), "--payload", asAscii("{\"t\":\"代数—一\"}")};
        assertThat(jvm[2]).contains("\uFFFD");
        byte[] raw = cmdline(
                "/usr/bin/java",
                "-Xmx64m",
                "-cp",
                "a.jar",
                "org.leasesync.Launcher",
                "edit",
                "--id",
                "课程一",
                "--payload",
                "{\"t\":\"代数—一\"}");

        assertThat(Utf8Input.arguments(jvm, "ANSI_X3.4-1968", () -> Optional.of(raw)))
                .containsExactly("edit", "--id", "课程一", "--payload", "{\"t\":\"代数—一\"}");
    }

    @Test
    void twoChineseIdsThatTheAsciiLocaleMadeEqualStayDifferent() {
        String[] one = {"--id", asAscii("课程一")};
        String[] two = {"--id", asAscii("课程二")};
        assertThat(one[1]).isEqualTo(two[1]); // the field failure: both read as nine U+FFFD

        assertThat(Utf8Input.arguments(one, "ANSI_X3.4-1968", () -> Optional.of(cmdline("java", "--id", "课程一")))[1])
                .isEqualTo("课程一");
        assertThat(Utf8Input.arguments(two, "ANSI_X3.4-1968", () -> Optional.of(cmdline("java", "--id", "课程二")))[1])
                .isEqualTo("课程二");
    }

    @Test
    void emptyArgumentsKeepTheirPlaceInTheCommandLine() {
        String[] jvm = {"--id", asAscii("记录"), "--note", ""};
        assertThat(Utf8Input.arguments(
                        jvm, "ANSI_X3.4-1968", () -> Optional.of(cmdline("java", "--id", "记录", "--note", ""))))
                .containsExactly("--id", "记录", "--note", "");
    }

    @Test
    void utf8LocaleAndAsciiOnlyArgumentsAreLeftAsTheJvmReadThem() {
        String[] utf8 = {"--id", "课程一"};
        assertThat(Utf8Input.arguments(utf8, "UTF-8", () -> {
                    throw new AssertionError("the command line is not read when the JVM read UTF-8");
                }))
                .isSameAs(utf8);
        String[] ascii = {"sync", "--user", "alice"};
        assertThat(Utf8Input.arguments(ascii, "ANSI_X3.4-1968", () -> {
                    throw new AssertionError("the command line is not read for ASCII arguments");
                }))
                .isSameAs(ascii);
    }

    @Test
    void replacedCharactersWithoutTheCommandLineBytesAreRefusedNamingTheFix() {
        String[] jvm = {"edit", "--id", asAscii("课程一")};
        assertThatThrownBy(() -> Utf8Input.arguments(jvm, "ANSI_X3.4-1968", Optional::empty))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("argument 3")
                .hasMessageContaining("LANG=C.UTF-8");
    }

    @Test
    void commandLineBytesThatAreNotTheArgumentsAreNotUsed() {
        // java @argfile: the arguments are not on the process's command line
        String[] jvm = {"edit", "--id", asAscii("课程一")};
        assertThatThrownBy(() ->
                        Utf8Input.arguments(jvm, "ANSI_X3.4-1968", () -> Optional.of(cmdline("java", "@args.txt"))))
                .hasMessageContaining("LANG=C.UTF-8");
        assertThatThrownBy(() -> Utf8Input.arguments(
                        jvm, "ANSI_X3.4-1968", () -> Optional.of(cmdline("java", "x", "--name", "课程一"))))
                .hasMessageContaining("argument 3");
    }

    @Test
    void bytesOfALegacyCharsetAreLeftToTheJvmThatReadThemInIt() {
        byte[] latin1 = "café".getBytes(StandardCharsets.ISO_8859_1);
        String[] jvm = {"--id", new String(latin1, StandardCharsets.ISO_8859_1)};
        byte[] raw = cmdline("java", "--id");
        byte[] all = new byte[raw.length + latin1.length + 1];
        System.arraycopy(raw, 0, all, 0, raw.length);
        System.arraycopy(latin1, 0, all, raw.length, latin1.length);

        assertThat(Utf8Input.arguments(jvm, "ISO-8859-1", () -> Optional.of(all)))
                .containsExactly("--id", "café");
    }

    @Test
    void inputThatIsNotUtf8IsRefusedNamingWhereAndTheByte() {
        assertThat(Utf8Input.text("{\"t\":\"代数\"}".getBytes(StandardCharsets.UTF_8), "x"))
                .isEqualTo("{\"t\":\"代数\"}");
        byte[] gbk = "{\"t\":\"代数\"}".getBytes(java.nio.charset.Charset.forName("GB18030"));
        assertThatThrownBy(() -> Utf8Input.text(gbk, "--payload-file notes.json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--payload-file notes.json is not UTF-8 text (at byte 6)");
    }
}
