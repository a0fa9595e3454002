package org.leasesync.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where a bearer token given for one run comes from: {@code --token}, {@code --token-file},
 * {@code --token-stdin}, else {@code LEASESYNC_TOKEN}. Without any, a command uses a signed-in
 * account ({@code leasesync login}). Not thread-safe; read once, in a command's validation.
 */
public final class TokenOptions {

    /** The environment variable a script may pass the token in. */
    static final String ENV = "LEASESYNC_TOKEN";

    @Option(
            names = "--token",
            paramLabel = "TOKEN",
            description = "The user's bearer token (with --server). "
                    + "Careful: a command line is readable by every local account (/proc/PID/cmdline, ps) while the command "
                    + "runs; prefer 'leasesync login', --token-file, --token-stdin or $LEASESYNC_TOKEN.")
    String token;

    @Option(
            names = "--token-file",
            paramLabel = "PATH",
            description = "Read the bearer token from this file " + "(its first line; keep it owner-only).")
    Path tokenFile;

    @Option(names = "--token-stdin", description = "Read the bearer token from standard input (its first line).")
    boolean tokenStdin;

    /** Whether a token option was given on the command line (not counting {@code LEASESYNC_TOKEN}). */
    boolean given() {
        return token != null || tokenFile != null || tokenStdin;
    }

    /**
     * The token, if one was given: from the option given (at most one), else from {@code LEASESYNC_TOKEN}.
     * Reads the file or standard input once. Never echoes the token.
     *
     * @throws IllegalArgumentException naming the option: several given, a file that cannot be read, an
     *     empty token, or one with a character a header cannot carry
     */
    Optional<String> read(Map<String, String> env, InputStream stdin) {
        int n = (token != null ? 1 : 0) + (tokenFile != null ? 1 : 0) + (tokenStdin ? 1 : 0);
        if (n > 1) {
            throw new IllegalArgumentException(
                    "give the token once: --token, --token-file and --token-stdin exclude " + "each other");
        }
        String source;
        String text;
        if (token != null) {
            source = "--token";
            text = token;
        } else if (tokenFile != null) {
            source = "--token-file";
            try {
                text = firstLine(Files.readString(tokenFile, StandardCharsets.UTF_8));
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("invalid --token-file: " + tokenFile + " does not exist");
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "invalid --token-file: " + tokenFile + " cannot be read (" + e.getMessage() + ")");
            }
        } else if (tokenStdin) {
            source = "--token-stdin";
            try {
                text = firstLine(new String(stdin.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "--token-stdin: standard input cannot be read (" + e.getMessage() + ")");
            }
        } else {
            String fromEnv = env.get(ENV);
            if (fromEnv == null || fromEnv.isBlank()) {
                return Optional.empty();
            }
            source = "$" + ENV;
            text = fromEnv.strip();
        }
        if (text.isBlank()) {
            throw new IllegalArgumentException(source + " gave an empty token");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new IllegalArgumentException("the token from " + source + " has "
                        + (c < 0x20 || c == 0x7f
                                ? "a control character"
                                : c == ' ' ? "a space" : "a non-ASCII character")
                        + " at position " + (i + 1) + "; a bearer token is visible ASCII only (RFC 6750)");
            }
        }
        return Optional.of(text);
    }

    /** The first line, without its line end or surrounding blanks (a file written by an editor ends in one). */
    static String firstLine(String s) {
        return s.lines().findFirst().orElse("").strip();
    }
}
