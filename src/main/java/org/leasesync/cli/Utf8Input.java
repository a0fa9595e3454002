package org.leasesync.cli;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * The command line's arguments and text input read as UTF-8 whatever the locale, so that a
 * record id or payload typed or piped in a C/POSIX locale (ssh without locale forwarding, cron,
 * {@code env -i}) is stored as typed, never with its characters replaced.
 *
 * <p>The JVM decodes {@code main}'s arguments in {@code sun.jnu.encoding}, the C library's locale
 * charset: in a C/POSIX locale that is ASCII, and every byte of a Chinese character becomes U+FFFD,
 * so two different Chinese ids become one. On Linux the bytes the process was started with are in
 * {@code /proc/self/cmdline} (proc(5)); {@link #arguments} decodes them as UTF-8 instead. Where they
 * cannot be had or are not UTF-8, it refuses (exit code 2 at the launcher) rather than go on with
 * replaced characters. Files and standard input are decoded by {@link #text}, which refuses bytes
 * that are not UTF-8 instead of replacing them.
 *
 * <p>Stateless and thread-safe.
 */
public final class Utf8Input {

    private static final char REPLACEMENT = '\uFFFD';

    private Utf8Input() {}

    /**
     * {@code main}'s arguments as UTF-8 text: unchanged when the JVM decoded them as UTF-8 (or when
     * all are ASCII), else re-read from {@code /proc/self/cmdline}.
     *
     * @throws IllegalArgumentException naming the argument and the fix when an argument has characters
     *     the JVM replaced and its bytes cannot be read as UTF-8
     */
    public static String[] arguments(String[] args) {
        return arguments(args, System.getProperty("sun.jnu.encoding", ""), Utf8Input::ownCommandLine);
    }

    /**
     * {@link #arguments(String[])} with the JVM's argument charset and the raw command line given.
     *
     * @param jnuEncoding the charset the JVM decoded {@code args} in ({@code sun.jnu.encoding})
     * @param rawCommandLine the process's whole command line as NUL-terminated byte strings (the
     *     format of {@code /proc/PID/cmdline}); empty where it cannot be read
     */
    static String[] arguments(String[] args, String jnuEncoding, Supplier<Optional<byte[]>> rawCommandLine) {
        boolean utf8 = isUtf8(jnuEncoding);
        boolean replaced = indexOfReplaced(args) >= 0;
        boolean allAscii = java.util.Arrays.stream(args).allMatch(a -> a.chars().allMatch(c -> c < 0x80));
        if ((utf8 && !replaced) || allAscii) {
            return args;
        }
        Optional<List<byte[]>> tail = rawCommandLine
                .get()
                .map(Utf8Input::split)
                .filter(all -> all.size() >= args.length)
                .map(all -> all.subList(all.size() - args.length, all.size()))
                .filter(t -> sameAsciiSkeleton(t, args));
        if (tail.isEmpty()) {
            return refuseIfReplaced(args);
        }
        String[] decoded = new String[args.length];
        for (int i = 0; i < args.length; i++) {
            Optional<String> text = strictUtf8(tail.get().get(i));
            if (text.isEmpty()) {
                // bytes in a legacy charset the locale names (ISO-8859-1, GB18030): the JVM's reading is right
                return refuseIfReplaced(args);
            }
            decoded[i] = text.get();
        }
        return decoded;
    }

    /**
     * {@code bytes} as UTF-8 text.
     *
     * @param what where the bytes came from, for the message ("--payload-file notes.json")
     * @throws IllegalArgumentException naming {@code what} and the byte offset when they are not UTF-8
     */
    public static String text(byte[] bytes, String what) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(what + " is not UTF-8 text (at byte " + firstBadByte(bytes)
                    + "); convert it to UTF-8 first, e.g. with iconv -t UTF-8");
        }
    }

    /**
     * Makes {@code cl} write UTF-8 to stdout and stderr when the JVM's default charset is ASCII (a
     * C/POSIX locale on Java 17), where it would write every other character as '?': UTF-8 loses
     * nothing there, while another locale's charset (GB18030, ISO-8859-1) is left to the JVM.
     */
    public static void utf8OutputInAsciiLocale(CommandLine cl) {
        if (Charset.defaultCharset().equals(StandardCharsets.US_ASCII)) {
            cl.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
            cl.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        }
    }

    private static String[] refuseIfReplaced(String[] args) {
        int i = indexOfReplaced(args);
        if (i < 0) {
            return args;
        }
        throw new IllegalArgumentException("argument " + (i + 1) + " ('" + args[i] + "') has characters this "
                + "locale cannot read (" + localeHint() + "); nothing was done. Run leasesync in a UTF-8 locale, "
                + "e.g. LANG=C.UTF-8 leasesync ...");
    }

    private static String localeHint() {
        for (String name : new String[] {"LC_ALL", "LC_CTYPE", "LANG"}) {
            String v = System.getenv(name);
            if (v != null && !v.isEmpty()) {
                return name + "=" + v;
            }
        }
        return "no LANG or LC_ALL set";
    }

    private static int indexOfReplaced(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].indexOf(REPLACEMENT) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isUtf8(String charsetName) {
        try {
            return Charset.forName(charsetName).equals(StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Whether the raw strings are the arguments: the same ASCII characters in the same order (only
     * non-ASCII ones can differ between the two decodings). A launcher that took the arguments from an
     * argument file ({@code java @file}) leaves other strings at the end of the command line.
     */
    private static boolean sameAsciiSkeleton(List<byte[]> raw, String[] args) {
        for (int i = 0; i < args.length; i++) {
            StringBuilder a = new StringBuilder();
            for (byte b : raw.get(i)) {
                if (b >= 0) {
                    a.append((char) b);
                }
            }
            if (!a.toString().equals(args[i].replaceAll("[^\\x00-\\x7F]", ""))) {
                return false;
            }
        }
        return true;
    }

    /** NUL-terminated byte strings (the last terminator may be missing). */
    static List<byte[]> split(byte[] raw) {
        List<byte[]> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == 0) {
                out.add(java.util.Arrays.copyOfRange(raw, start, i));
                start = i + 1;
            }
        }
        if (start < raw.length) {
            out.add(java.util.Arrays.copyOfRange(raw, start, raw.length));
        }
        return out;
    }

    private static Optional<String> strictUtf8(byte[] bytes) {
        try {
            return Optional.of(text(bytes, "argument"));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static int firstBadByte(byte[] bytes) {
        var decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length + 1);
        decoder.decode(in, out, true);
        return in.position();
    }

    private static Optional<byte[]> ownCommandLine() {
        try {
            return Optional.of(Files.readAllBytes(Path.of("/proc/self/cmdline")));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty(); // not Linux, or no /proc: arguments() refuses replaced characters
        }
    }
}
