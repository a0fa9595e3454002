package org.leasesync.cli;

import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.leasesync.client.AccountService;
import org.leasesync.client.SignInResult;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync login}: signs in with the user's password ({@code POST /v1/sessions}), keeps the
 * session token in the desktop keyring (else an owner-only file) and remembers the account for the
 * other commands and the window. Exit codes: 0 signed in, 1 failed (server unreachable, server error,
 * the token could not be kept), 2 usage error, 6 wrong user name or password, 7 too many attempts
 * (wait), 8 the server's certificate is not trusted.
 */
@Command(
        name = "login",
        mixinStandardHelpOptions = true,
        description = {
            "Sign in to a sync server and keep the session for sync, status, records, edit, outbox, "
                    + "resolve and the window.",
            "The session token goes to the desktop keyring (Secret Service: GNOME Keyring, KWallet, …); where none "
                    + "answers (no session bus, no keyring daemon), to the owner-only file "
                    + "<data dir>/credentials/tokens.json, and login says so. The password is never stored.",
            "Exit codes: 0 signed in; 1 failed (server unreachable or failing, the token could not be kept); 2 usage "
                    + "error; 6 wrong user name or password; 7 too many failed sign-ins (try again after the time "
                    + "it names); 8 the server's certificate is not trusted (it names its SHA-256 fingerprint)."
        })
public final class LoginCommand implements Callable<Integer>, WritesDataDir {

    static final int WRONG_PASSWORD = 6;
    static final int TOO_MANY_ATTEMPTS = 7;
    static final int CERTIFICATE_NOT_TRUSTED = 8;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    HttpOptions httpOptions;

    @Mixin
    TransportOptions transportOptions;

    @Option(names = "--server", required = true, paramLabel = "URL[,URL...]", description = HttpOptions.SERVER_HELP)
    String server;

    @Option(names = "--user", required = true, paramLabel = "NAME", description = "User name.")
    String user;

    @Option(
            names = "--password-stdin",
            description = "Read the password from standard input (up to its end; one "
                    + "trailing line end is dropped). Without it, the password is asked for on the terminal.")
    boolean passwordStdin;

    @Option(
            names = "--device-name",
            paramLabel = "NAME",
            description = "How this device appears in your session "
                    + "list, 1-100 printable characters. Default: 'leasesync on <host name>'.")
    String deviceName;

    @Spec
    CommandSpec spec;

    private ServerUrls servers;
    private TransportSecurity transport;
    private char[] password;

    @Override
    public void validate() {
        servers = HttpOptions.checkServer(server);
        try {
            HttpSyncRemote.checkProtocolUserId(user);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --user: " + e.getMessage());
        }
        if (deviceName != null
                && (deviceName.isEmpty()
                        || deviceName.length() > 100
                        || !deviceName.chars().allMatch(c -> c >= 0x20 && c != 0x7f))) {
            throw new IllegalArgumentException("invalid --device-name: use 1-100 printable characters");
        }
        httpOptions.settings();
        transport = transportOptions.load();
        try {
            transport.check(servers);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("refusing --server " + e.getMessage());
        }
        password = passwordStdin ? readAll(System.in) : askOnTerminal();
        if (password.length == 0) {
            throw new IllegalArgumentException("the password is empty");
        }
    }

    private char[] askOnTerminal() {
        Console console = System.console();
        if (console == null) {
            throw new IllegalArgumentException(
                    "no terminal to ask for the password: give it on standard input with " + "--password-stdin");
        }
        char[] p = console.readPassword("Password for %s at %s: ", user, ServerUrls.display(servers.first()));
        if (p == null) {
            throw new IllegalArgumentException("no password given");
        }
        for (char c : p) {
            if (c == '\uFFFD') {
                Arrays.fill(p, '\0');
                // the terminal's charset is the locale's: in a C/POSIX locale every non-ASCII character is lost
                throw new IllegalArgumentException("the password has characters this locale cannot read; run in a "
                        + "UTF-8 locale (e.g. LANG=C.UTF-8) or give the password with --password-stdin");
            }
        }
        return p;
    }

    /** Standard input as characters, without one trailing line end; the bytes are cleared. */
    static char[] readAll(InputStream in) {
        byte[] bytes;
        try {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "--password-stdin: standard input cannot be read (" + e.getMessage() + ")");
        }
        CharBuffer chars;
        try {
            // strict: a password with replaced characters would be refused by the server as wrong
            chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("--password-stdin: standard input is not UTF-8 text");
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
        int end = chars.limit();
        if (end > 0 && chars.get(end - 1) == '\n') {
            end--;
            if (end > 0 && chars.get(end - 1) == '\r') {
                end--;
            }
        }
        char[] out = Arrays.copyOf(chars.array(), end);
        Arrays.fill(chars.array(), '\0');
        return out;
    }

    @Override
    public Integer call() {
        if (password == null) {
            try {
                validate();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SignInResult r;
        try {
            r = AccountService.forThisProcess(dataDir.resolve())
                    .signIn(
                            servers,
                            user,
                            password,
                            deviceName != null ? deviceName : AccountService.defaultDeviceName(),
                            transport,
                            httpOptions.settings());
        } finally {
            Arrays.fill(password, '\0');
        }
        if (r instanceof SignInResult.SignedIn s) {
            s.notKeyringBecause().ifPresent(why -> {
                err.println("leasesync: no desktop keyring can be used here (" + why + "); the session token is kept "
                        + "in the owner-only file " + s.keptIn().replaceFirst("^the owner-only file ", "")
                        + " instead");
                err.flush();
            });
            out.println(r.message());
            out.flush();
            return 0;
        }
        err.println("leasesync: " + r.message());
        err.flush();
        if (r instanceof SignInResult.WrongPassword) {
            return WRONG_PASSWORD;
        }
        if (r instanceof SignInResult.TooManyAttempts) {
            return TOO_MANY_ATTEMPTS;
        }
        if (r instanceof SignInResult.CertificateNotTrusted) {
            return CERTIFICATE_NOT_TRUSTED;
        }
        return 1;
    }
}
