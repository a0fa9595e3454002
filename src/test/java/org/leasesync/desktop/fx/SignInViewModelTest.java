package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.Account;
import org.leasesync.client.SignInResult;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.SignInPort;
import org.leasesync.desktop.SignInRequest;
import org.leasesync.desktop.fx.SignInViewModel.Field;
import org.leasesync.keyring.TokenVault;
import org.leasesync.remote.ServerUrls;
import org.leasesync.testing.ManualTime;

/**
 * The Sign in dialog's rules without a stage: direct executors and a port that answers what the
 * test says. Every problem is said at once, each beside its field; each answer of the server goes to
 * the field it is about, in the words the user sees; the password array is cleared after use.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SignInViewModelTest {

    static final String FINGERPRINT =
            "2F:2D:40:80:5C:CF:F1:74:94:63:2C:44:FD:CE:89:63:56:BC:4A:01:C0:F9:8C:FE:B9:B9:03:AB:65:BB:FE:48";

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime(); // 2026-11-30T10:00:00Z
    final Executor direct = Runnable::run;
    final List<SignInRequest> asked = new ArrayList<>();
    final List<char[]> passwords = new ArrayList<>();
    final List<SignInResult.SignedIn> signedIn = new ArrayList<>();
    SignInResult answer = new SignInResult.WrongPassword("https://sync.example.org/");
    Optional<String> elsewhere = Optional.empty();

    final SignInPort port = new SignInPort() {
        @Override
        public SignInResult signIn(SignInRequest request) {
            asked.add(request);
            passwords.add(request.password());
            assertThat(new String(request.password()))
                    .as("the password, while the sign-in runs")
                    .isEqualTo("secret");
            return answer;
        }

        @Override
        public Optional<String> signedInElsewhere(String user, ServerUrls servers) {
            return elsewhere;
        }
    };

    SignInViewModel vm() {
        SignInViewModel vm =
                new SignInViewModel(port, direct, direct, new Messages(Locale.UK, ZoneOffset.UTC), time, signedIn::add);
        vm.setDefaultDevice("leasesync on desk");
        vm.openNew(false);
        return vm;
    }

    SignInViewModel filled() {
        SignInViewModel vm = vm();
        vm.serversProperty().set("https://sync.example.org/");
        vm.userProperty().set("carol");
        return vm;
    }

    static String error(SignInViewModel vm, Field f) {
        return vm.errorProperty(f).get();
    }

    static List<Field> wrong(SignInViewModel vm) {
        return java.util.Arrays.stream(Field.values())
                .filter(f -> !error(vm, f).isEmpty())
                .toList();
    }

    @Test
    void everyMistakeBeforeTheServerIsSaidAtOnceBesideItsFieldAndNothingIsSent() {
        SignInViewModel vm = vm();
        vm.userProperty().set("carol smith");
        vm.deviceProperty().set("");
        vm.caFileProperty().set(tmp.resolve("missing.pem").toString());
        vm.submit("");

        assertThat(wrong(vm)).containsExactly(Field.SERVERS, Field.USER, Field.PASSWORD, Field.DEVICE, Field.CA_FILE);
        assertThat(error(vm, Field.SERVERS)).isEqualTo("Enter the server's address, e.g. https://sync.example.org/.");
        assertThat(error(vm, Field.USER))
                .isEqualTo("'carol smith' cannot be a user name: use 1 to 64 letters, digits, " + "., _ or -.");
        assertThat(error(vm, Field.PASSWORD)).isEqualTo("Enter your password.");
        assertThat(error(vm, Field.DEVICE))
                .isEqualTo("Enter 1 to 100 printable characters: the name you will see for "
                        + "this device in your list of sessions.");
        assertThat(error(vm, Field.CA_FILE))
                .isEqualTo("This file cannot be used: the CA file " + tmp.resolve("missing.pem") + " does not exist.");
        assertThat(vm.focusProperty().get())
                .as("the keyboard goes to the first")
                .isEqualTo(Field.SERVERS);
        assertThat(vm.busyProperty().get()).isFalse();
        assertThat(asked).isEmpty();
    }

    @Test
    void aBadUrlAPlainHttpServerAndAUserSignedInElsewhereAreTheirFields() throws Exception {
        SignInViewModel vm = filled();
        vm.serversProperty().set("https://a.example/, ftp://b.example/");
        vm.submit("secret");
        assertThat(error(vm, Field.SERVERS))
                .isEqualTo("'ftp://b.example/' (entry 2 of 2) is not an http:// or https:// "
                        + "URL. Enter http:// or https:// URLs separated by commas (at most 16).");

        vm.serversProperty().set("http://192.168.1.20:8787/");
        vm.submit("secret");
        assertThat(wrong(vm)).containsExactly(Field.SERVERS);
        assertThat(error(vm, Field.SERVERS))
                .isEqualTo("http://192.168.1.20:8787/ is plain http:// to another machine: "
                        + "the password would cross unencrypted. Use https://, or allow plain HTTP below.");
        vm.serversProperty().set("http://127.0.0.1:8787/"); // this machine: allowed without asking
        elsewhere = Optional.of("https://other.example/");
        vm.submit("secret");
        assertThat(wrong(vm)).containsExactly(Field.USER);
        assertThat(error(vm, Field.USER))
                .isEqualTo("carol is already signed in here on https://other.example/. This "
                        + "device keeps one copy of a user's data: sign carol out there first.");
        assertThat(asked).isEmpty();

        elsewhere = Optional.empty();
        vm.serversProperty().set("http://192.168.1.20:8787/");
        vm.allowInsecureHttpProperty().set(true); // the user ticked it
        Path ca = Files.writeString(tmp.resolve("not-a-cert.pem"), "hello");
        vm.caFileProperty().set(ca.toString());
        vm.submit("secret");
        assertThat(wrong(vm)).containsExactly(Field.CA_FILE);
        assertThat(error(vm, Field.CA_FILE)).startsWith("This file cannot be used: the CA file " + ca);
        vm.caFileProperty().set("");
        vm.submit("secret");
        assertThat(asked).hasSize(1);
        assertThat(asked.get(0).transport().allowInsecureHttp()).isTrue();
        assertThat(asked.get(0).device()).isEqualTo("leasesync on desk");
    }

    @Test
    void aWrongPasswordIsThePasswordsAndEmptiesItAndThePasswordArrayIsClearedAfterUse() {
        SignInViewModel vm = filled();
        int clears = vm.clearPasswordProperty().get();
        vm.submit(new StringBuilder("secret"));

        assertThat(wrong(vm)).containsExactly(Field.PASSWORD);
        assertThat(error(vm, Field.PASSWORD)).isEqualTo("Wrong user name or password.");
        assertThat(vm.clearPasswordProperty().get()).as("the field is emptied").isGreaterThan(clears);
        assertThat(passwords.get(0))
                .as("the array the port was given, cleared after use")
                .containsOnly('\0');
        assertThat(vm.focusProperty().get()).isEqualTo(Field.PASSWORD);
        assertThat(vm.closeProperty().get()).isZero();
        assertThat(signedIn).isEmpty();
    }

    @Test
    void tooManyAttemptsSaysHowLongToWaitAndUntilWhen() {
        SignInViewModel vm = filled();
        answer = new SignInResult.TooManyAttempts("https://sync.example.org/", Optional.of(Duration.ofSeconds(250)));
        vm.submit("secret");
        assertThat(wrong(vm)).containsExactly(Field.PASSWORD);
        assertThat(error(vm, Field.PASSWORD))
                .isEqualTo("Too many failed sign-ins: try again in 4 mins, 10 secs (at 10:04). "
                        + "Until then even the right password is refused.");

        answer = new SignInResult.TooManyAttempts("https://sync.example.org/", Optional.of(Duration.ofMillis(44_100)));
        vm.submit("secret");
        assertThat(error(vm, Field.PASSWORD)).startsWith("Too many failed sign-ins: try again in 45 secs (at 10:00).");
        answer = new SignInResult.TooManyAttempts("https://sync.example.org/", Optional.empty());
        vm.submit("secret");
        assertThat(error(vm, Field.PASSWORD))
                .isEqualTo("Too many failed sign-ins: try again later. Until then even the "
                        + "right password is refused.");
    }

    @Test
    void anUnreachableServerIsTheServersField() {
        SignInViewModel vm = filled();
        answer = new SignInResult.Unreachable(
                "cannot reach the sync server at https://sync.example.org/ (connection refused)");
        vm.submit("secret");
        assertThat(wrong(vm)).containsExactly(Field.SERVERS);
        assertThat(error(vm, Field.SERVERS))
                .isEqualTo("The server cannot be reached: cannot reach the sync server at "
                        + "https://sync.example.org/ (connection refused)");
        assertThat(vm.fingerprintProperty().get()).isEmpty();
    }

    @Test
    void anUntrustedCertificateMarksServerAndCaFileAndShowsItsFingerprint() {
        SignInViewModel vm = filled();
        answer = new SignInResult.CertificateNotTrusted("https://sync.example.org/", FINGERPRINT);
        vm.submit("secret");
        assertThat(wrong(vm)).containsExactly(Field.SERVERS, Field.CA_FILE);
        assertThat(error(vm, Field.SERVERS))
                .isEqualTo("The certificate of https://sync.example.org/ is not trusted. "
                        + "Compare its SHA-256 fingerprint, under CA file, with your server operator's.");
        assertThat(vm.fingerprintProperty().get()).isEqualTo(FINGERPRINT);
        assertThat(vm.focusProperty().get()).isEqualTo(Field.SERVERS);

        answer = new SignInResult.WrongPassword("https://sync.example.org/"); // the next answer replaces it
        vm.submit("secret");
        assertThat(vm.fingerprintProperty().get()).isEmpty();
        assertThat(wrong(vm)).containsExactly(Field.PASSWORD);
    }

    @Test
    void aFailureOfNoFieldIsTheDialogsOwnLine() {
        SignInViewModel vm = filled();
        answer = new SignInResult.Failed(
                "signed in, but the session could not be kept: disk full; the new session was " + "ended again");
        vm.submit("secret");
        assertThat(wrong(vm)).isEmpty();
        assertThat(vm.errorProperty().get())
                .isEqualTo("Sign-in failed: signed in, but the session could not be kept: "
                        + "disk full; the new session was ended again");
    }

    @Test
    void signedInClosesTheDialogTellsTheWindowAndAResultAfterCancelStillCounts() {
        SignInViewModel vm = filled();
        Account carol = new Account(
                ServerUrls.parse("https://sync.example.org/"),
                "carol",
                Optional.empty(),
                false,
                TokenVault.Place.KEYRING,
                Instant.parse("2026-11-30T10:00:00Z"));
        answer = new SignInResult.SignedIn(carol, "the desktop keyring (Secret Service)", Optional.empty());
        vm.submit("secret");
        assertThat(vm.closeProperty().get()).isEqualTo(1);
        assertThat(signedIn).hasSize(1);

        // a sign-in on its way when the dialog was closed: its result is not shown, but the window learns of it
        List<Runnable> later = new ArrayList<>();
        SignInViewModel slow = new SignInViewModel(
                port, later::add, direct, new Messages(Locale.UK, ZoneOffset.UTC), time, signedIn::add);
        slow.serversProperty().set("https://sync.example.org/");
        slow.userProperty().set("carol");
        slow.deviceProperty().set("desk");
        slow.submit("secret");
        assertThat(slow.busyProperty().get()).isTrue();
        assertThat(slow.statusProperty().get()).isEqualTo("Signing in…");
        slow.submit("secret"); // a second click while busy asks nothing
        assertThat(later).hasSize(1);
        slow.cancel();
        later.get(0).run();
        assertThat(slow.closeProperty().get()).isZero();
        assertThat(signedIn).hasSize(2);
    }

    @Test
    void signInAgainFillsEverythingButThePasswordWhereTheKeyboardGoes() {
        SignInViewModel vm = vm();
        Account carol = new Account(
                ServerUrls.parse("https://a.example/,https://b.example/"),
                "carol",
                Optional.of(tmp.resolve("ca.pem")),
                true,
                TokenVault.Place.KEYRING,
                Instant.parse("2026-11-30T10:00:00Z"));
        vm.openAgain(carol);
        assertThat(vm.titleProperty().get()).isEqualTo("Sign in again");
        assertThat(vm.serversProperty().get()).isEqualTo("https://a.example/, https://b.example/");
        assertThat(vm.userProperty().get()).isEqualTo("carol");
        assertThat(vm.caFileProperty().get()).isEqualTo(tmp.resolve("ca.pem").toString());
        assertThat(vm.allowInsecureHttpProperty().get()).isTrue();
        assertThat(vm.focusProperty().get()).isEqualTo(Field.PASSWORD);
        assertThat(vm.introProperty().get())
                .isEqualTo(
                        "The server no longer accepts the session of carol on "
                                + "https://a.example/. Enter the password to sign in again; your unsent edits are kept and sync right after.");
        vm.openNew(true);
        assertThat(vm.titleProperty().get()).isEqualTo("Add account");
        assertThat(vm.userProperty().get()).isEmpty();
        assertThat(Map.of("device", vm.deviceProperty().get())).containsEntry("device", "leasesync on desk");
    }
}
