package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.leasesync.client.Account;
import org.leasesync.client.SignInResult;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.SignInPort;
import org.leasesync.desktop.SignInRequest;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;

/**
 * The Sign in dialog's view model (also Add account and Sign in again): the fields as the user types
 * them, and what is wrong with them — every problem at once, each beside its field — before and
 * after asking the server. Wrong password and too many attempts are the password's; an unreachable
 * server, plain http to another machine and an untrusted certificate the server's (with the
 * certificate's SHA-256 fingerprint beside the CA file, the fix); a bad CA file its own.
 *
 * <p>Properties on the FX thread only. {@link #submit} copies the password into an array that is
 * cleared once the sign-in returned; the checks that read files and the sign-in itself (network,
 * session bus, maybe a keyring prompt) run on the injected {@code accounts} executor, never the FX
 * thread; their results come back through the injected UI executor.
 */
public final class SignInViewModel {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SignInViewModel.class);

    /** The protocol's longest password (docs/protocol.md §12). */
    static final int MAX_PASSWORD = 1024;
    /** The protocol's longest device name. */
    static final int MAX_DEVICE = 100;

    /** The dialog's fields that can be wrong. */
    public enum Field {
        SERVERS,
        USER,
        PASSWORD,
        DEVICE,
        CA_FILE
    }

    /** What the dialog is opened for. */
    public enum Mode {
        SIGN_IN,
        ADD_ACCOUNT,
        SIGN_IN_AGAIN
    }

    private final SignInPort port;
    private final Executor accounts;
    private final Executor ui;
    private final Messages m;
    private final TimeSource time;
    private final Consumer<SignInResult.SignedIn> signedIn;

    private final StringProperty servers = new SimpleStringProperty("");
    private final StringProperty user = new SimpleStringProperty("");
    private final StringProperty device = new SimpleStringProperty("");
    private final StringProperty caFile = new SimpleStringProperty("");
    private final BooleanProperty allowInsecureHttp = new SimpleBooleanProperty(false);
    private final Map<Field, ReadOnlyStringWrapper> errors = new EnumMap<>(Field.class);
    private final ReadOnlyStringWrapper fingerprint = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper intro = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyObjectWrapper<Mode> mode = new ReadOnlyObjectWrapper<>(Mode.SIGN_IN);
    private final ReadOnlyObjectWrapper<Field> focus = new ReadOnlyObjectWrapper<>(Field.SERVERS);
    private final ReadOnlyIntegerWrapper clearPassword = new ReadOnlyIntegerWrapper(0);
    private final ReadOnlyIntegerWrapper close = new ReadOnlyIntegerWrapper(0);
    private String defaultDevice = "leasesync";
    /** Counts openings, so a result that comes back after the dialog was closed and opened again is dropped. */
    private int opening;

    /**
     * @param accounts runs the file checks and the sign-in (may block for minutes on a keyring prompt)
     * @param ui delivers results to the FX thread ({@code Platform::runLater}); direct in tests
     * @param signedIn told (FX thread) when a sign-in succeeded, after the dialog asked to close
     */
    SignInViewModel(
            SignInPort port,
            Executor accounts,
            Executor ui,
            Messages messages,
            TimeSource time,
            Consumer<SignInResult.SignedIn> signedIn) {
        this.port = Objects.requireNonNull(port);
        this.accounts = Objects.requireNonNull(accounts);
        this.ui = Objects.requireNonNull(ui);
        this.m = Objects.requireNonNull(messages);
        this.time = Objects.requireNonNull(time);
        this.signedIn = Objects.requireNonNull(signedIn);
        for (Field f : Field.values()) {
            errors.put(f, new ReadOnlyStringWrapper(""));
        }
        open(Mode.SIGN_IN, Optional.empty());
    }

    /** The device name a new sign-in offers ({@code AccountService.defaultDeviceName()}, found off the FX thread). */
    void setDefaultDevice(String name) {
        defaultDevice = Objects.requireNonNull(name);
        if (device.get().isBlank()) {
            device.set(name);
        }
    }

    /** Opens empty: the first sign-in (from the demo), or another account ({@link Mode#ADD_ACCOUNT}). */
    public void openNew(boolean another) {
        open(another ? Mode.ADD_ACCOUNT : Mode.SIGN_IN, Optional.empty());
    }

    /** Opens for {@code account}, whose session the server refused: only the password is left to type. */
    public void openAgain(Account account) {
        open(Mode.SIGN_IN_AGAIN, Optional.of(account));
    }

    private void open(Mode next, Optional<Account> again) {
        opening++;
        mode.set(next);
        title.set(m.get("signin.title." + next.name()));
        intro.set(again.map(a -> m.get("signin.intro.again", a.user(), a.server()))
                .orElseGet(() -> m.get("signin.intro")));
        servers.set(again.map(a -> String.join(
                        ", ", a.servers().urls().stream().map(Object::toString).toList()))
                .orElse(""));
        user.set(again.map(Account::user).orElse(""));
        device.set(defaultDevice);
        caFile.set(again.flatMap(Account::caFile).map(Path::toString).orElse(""));
        allowInsecureHttp.set(again.map(Account::allowInsecureHttp).orElse(false));
        clearErrors();
        status.set("");
        busy.set(false);
        focus.set(again.isPresent() ? Field.PASSWORD : Field.SERVERS);
        clearPassword.set(clearPassword.get() + 1);
    }

    /** The dialog was closed without signing in: a sign-in still on its way is not shown any more. */
    public void cancel() {
        opening++;
        busy.set(false);
        status.set("");
        clearPassword.set(clearPassword.get() + 1);
    }

    /**
     * Checks every field and, when all are right, signs in. FX thread; the work runs on the accounts
     * executor. Does nothing while a sign-in is on its way.
     *
     * @param password the password field's characters, copied at once (no String is made of them)
     */
    public void submit(CharSequence password) {
        if (busy.get()) {
            return;
        }
        char[] pw = new char[password.length()];
        for (int i = 0; i < pw.length; i++) {
            pw[i] = password.charAt(i);
        }
        Form form = new Form(text(servers), text(user), text(device), text(caFile), allowInsecureHttp.get());
        int at = opening;
        clearErrors();
        busy.set(true);
        status.set(m.get("signin.busy"));
        accounts.execute(() -> {
            Map<Field, String> wrong = new EnumMap<>(Field.class);
            SignInResult result = null;
            String failure = "";
            try {
                Optional<SignInRequest> request = check(form, pw, wrong);
                if (request.isPresent()) {
                    result = port.signIn(request.get());
                }
            } catch (RuntimeException e) {
                log.warn("sign-in failed: {}", e.toString());
                failure = m.get("signin.error.failed", e.getMessage() == null ? e.toString() : e.getMessage());
            } finally {
                Arrays.fill(pw, '\0');
            }
            SignInResult r = result;
            String f = failure;
            ui.execute(() -> done(at, wrong, r, f));
        });
    }

    /** What the user typed, trimmed (the password apart). */
    private record Form(String servers, String user, String device, String caFile, boolean allowInsecureHttp) {}

    /** Every check before the server is asked; the wrong fields go into {@code wrong}. Accounts thread (reads the CA file). */
    private Optional<SignInRequest> check(Form f, char[] password, Map<Field, String> wrong) {
        ServerUrls urls = null;
        if (f.servers().isEmpty()) {
            wrong.put(Field.SERVERS, m.get("signin.error.noServer"));
        } else {
            try {
                urls = ServerUrls.parse(f.servers());
            } catch (IllegalArgumentException e) {
                wrong.put(Field.SERVERS, m.get("signin.error.servers", e.getMessage()));
            }
        }
        if (urls != null && !f.allowInsecureHttp()) {
            TransportSecurity.plainHttpToAnotherMachine(urls)
                    .ifPresent(u -> wrong.put(Field.SERVERS, m.get("signin.error.plainHttp", u)));
        }
        try {
            HttpSyncRemote.checkProtocolUserId(f.user());
            if (urls != null) {
                Optional<String> elsewhere = port.signedInElsewhere(f.user(), urls);
                elsewhere.ifPresent(other -> wrong.put(Field.USER, m.get("signin.error.elsewhere", f.user(), other)));
            }
        } catch (IllegalArgumentException e) {
            wrong.put(Field.USER, m.get(f.user().isEmpty() ? "signin.error.noUser" : "signin.error.user", f.user()));
        }
        if (password.length == 0) {
            wrong.put(Field.PASSWORD, m.get("signin.error.noPassword"));
        } else if (password.length > MAX_PASSWORD) {
            wrong.put(Field.PASSWORD, m.get("signin.error.longPassword", MAX_PASSWORD));
        }
        if (f.device().isEmpty()
                || f.device().length() > MAX_DEVICE
                || f.device().chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            wrong.put(Field.DEVICE, m.get("signin.error.device", MAX_DEVICE));
        }
        TransportSecurity transport = null;
        try {
            transport = TransportSecurity.load(
                    f.caFile().isEmpty() ? Optional.empty() : Optional.of(Path.of(f.caFile())), f.allowInsecureHttp());
        } catch (IllegalArgumentException e) { // also a path the file system cannot name
            wrong.put(Field.CA_FILE, m.get("signin.error.caFile", e.getMessage()));
        }
        if (!wrong.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new SignInRequest(urls, f.user(), password, f.device(), transport));
    }

    private void done(int at, Map<Field, String> wrong, SignInResult r, String failure) {
        if (at != opening) {
            if (r instanceof SignInResult.SignedIn s) {
                signedIn.accept(s); // signed in although the dialog was closed meanwhile: the window still knows
            }
            return;
        }
        busy.set(false);
        status.set("");
        wrong.forEach((f, text) -> errors.get(f).set(text));
        error.set(failure);
        if (r == null) {
            focus.set(firstWrong().orElse(focus.get()));
            return;
        }
        if (r instanceof SignInResult.SignedIn s) {
            clearPassword.set(clearPassword.get() + 1);
            close.set(close.get() + 1);
            signedIn.accept(s);
        } else if (r instanceof SignInResult.WrongPassword) {
            errors.get(Field.PASSWORD).set(m.get("signin.error.wrongPassword"));
            clearPassword.set(clearPassword.get() + 1);
        } else if (r instanceof SignInResult.TooManyAttempts t) {
            errors.get(Field.PASSWORD)
                    .set(t.retryAfter()
                            .map(d -> m.get(
                                    "signin.error.tooMany",
                                    wait(d),
                                    m.time(time.now().plus(d))))
                            .orElseGet(() -> m.get("signin.error.tooManyLater")));
            clearPassword.set(clearPassword.get() + 1);
        } else if (r instanceof SignInResult.Unreachable u) {
            errors.get(Field.SERVERS).set(m.get("signin.error.unreachable", u.detail()));
        } else if (r instanceof SignInResult.CertificateNotTrusted c) {
            errors.get(Field.SERVERS).set(m.get("signin.error.certificate", c.server()));
            errors.get(Field.CA_FILE).set(m.get("signin.error.certificateCa"));
            fingerprint.set(c.sha256Fingerprint());
        } else if (r instanceof SignInResult.Failed f) {
            error.set(m.get("signin.error.failed", f.message()));
        }
        focus.set(firstWrong().orElse(focus.get()));
    }

    /** "4 min, 10 sec", "45 sec" ("4分钟10秒"): how long to wait, whole seconds (rounded up). */
    private String wait(Duration d) {
        return m.duration(Duration.ofSeconds(Math.max(1, (d.toMillis() + 999) / 1000)));
    }

    private Optional<Field> firstWrong() {
        for (Field f : Field.values()) {
            if (!errors.get(f).get().isEmpty()) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    private void clearErrors() {
        errors.values().forEach(e -> e.set(""));
        fingerprint.set("");
        error.set("");
    }

    private static String text(StringProperty p) {
        return p.get() == null ? "" : p.get().trim();
    }

    // ---- the fields

    /** Server URL(s), comma-separated. */
    public StringProperty serversProperty() {
        return servers;
    }

    public StringProperty userProperty() {
        return user;
    }

    /** The name of this device in the user's list of sessions. */
    public StringProperty deviceProperty() {
        return device;
    }

    /** A PEM file of the server's certificate or its CA's, trusted besides the system's; empty for none. */
    public StringProperty caFileProperty() {
        return caFile;
    }

    /** Plain http to another machine allowed (the user ticked it). */
    public BooleanProperty allowInsecureHttpProperty() {
        return allowInsecureHttp;
    }

    // ---- what the dialog shows

    /** What is wrong with {@code field}, for the line beside it; empty when nothing is. */
    public ReadOnlyStringProperty errorProperty(Field field) {
        return errors.get(field).getReadOnlyProperty();
    }

    /** The untrusted certificate's SHA-256 fingerprint ({@code AB:CD:…}), shown selectable; empty otherwise. */
    public ReadOnlyStringProperty fingerprintProperty() {
        return fingerprint.getReadOnlyProperty();
    }

    /** A failure that belongs to no field (the server failed, the token could not be kept); empty when none. */
    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** "Signing in…" while the sign-in is on its way, else empty. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** The line at the top: what signing in does, or whose session ended. */
    public ReadOnlyStringProperty introProperty() {
        return intro.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Mode> modeProperty() {
        return mode.getReadOnlyProperty();
    }

    /** The field the keyboard should be in: the first wrong one, or where to start typing. */
    public ReadOnlyObjectProperty<Field> focusProperty() {
        return focus.getReadOnlyProperty();
    }

    /** Counts up when the password field should be emptied (opened, wrong password, signed in). */
    public ReadOnlyIntegerProperty clearPasswordProperty() {
        return clearPassword.getReadOnlyProperty();
    }

    /** Counts up when the dialog should close (signed in). */
    public ReadOnlyIntegerProperty closeProperty() {
        return close.getReadOnlyProperty();
    }
}
