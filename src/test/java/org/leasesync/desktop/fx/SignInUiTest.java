package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.css.PseudoClass;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.ComboBox;
import javafx.scene.control.TextInputControl;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.AccountService;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.desktop.tray.TrayState;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerAccounts;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.FxTest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The Sign in dialog on the real window, against a real reference server in this JVM whose account
 * is made through its store: the window starts on the embedded demo, signs in through the dialog's
 * controls (found by id), refuses a wrong password beside the password without moving anything,
 * shows a signed-out card with its Sign in button once the server revokes the session, holds back
 * the automatic triggers, signs in again and pushes the kept edit, and signs out back to the demo.
 * The token goes to the owner-only token file (the test's accounts have no session bus).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@ExtendWith(ApplicationExtension.class)
@FxTest
class SignInUiTest {

    static final String PASSWORD = "correct horse battery staple";
    static final PseudoClass DANGER = PseudoClass.getPseudoClass("danger");

    @TempDir
    Path tmp;

    Stage stage;
    ReferenceServer remote;
    Backend backend;
    AppAssembly assembly;
    final org.leasesync.testing.RecordingTray tray = new org.leasesync.testing.RecordingTray(true);

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @BeforeEach
    void server() throws Exception {
        remote = ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE));
        ServerAccounts.add(remote, "carol", PASSWORD);
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        if (assembly != null) {
            robot.interact(assembly::close);
            backend.close();
        }
        remote.close();
    }

    Path data() {
        return tmp.resolve("data");
    }

    void open(FxRobot robot) {
        Backend.AppSettings s = UiTestSupport.settings(data(), Duration.ofHours(1), TimeSource.system());
        robot.interact(() -> {
            backend = Backend.start(s, new AccountService(data(), Map.of(), TimeSource.system()));
            HostDesktop parts = new HostDesktop(
                    new Messages(Locale.UK, BackgroundFixture.ZONE),
                    tray,
                    clicked -> Notifier.NONE,
                    new Autostart(
                            tmp.resolve("config"), tmp.resolve("config").resolveSibling("share"), Optional.empty()),
                    exit -> {},
                    () -> {},
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            assembly = new AppAssembly(
                    backend, new StartOptions(s, Set.of(), Locale.UK), stage, Platform::runLater, parts);
            assembly.show();
        });
        waitUntil(
                "the demo's first account",
                () -> "alice".equals(assembly.viewModel().currentUser()));
        Thread trayStart = new Thread(assembly::installTray, "tray-start");
        trayStart.start();
        try {
            trayStart.join(20_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    void openSignInFromTheMenu(FxRobot robot, String item) {
        robot.clickOn("#app-menu");
        robot.clickOn(item);
        waitUntil(
                "the Sign in dialog is open",
                () -> assembly.accounts().dialogShowing()
                        && robot.lookup("#signin-submit").tryQuery().isPresent());
    }

    void type(FxRobot robot, String id, String value) {
        robot.interact(() -> robot.lookup(id).queryAs(TextInputControl.class).clear());
        robot.clickOn(id).write(value);
    }

    /** Where a control is on the screen (its layout bounds: a focus ring drawn around it does not count). */
    Bounds onScreen(FxRobot robot, String id) {
        Node n = robot.lookup(id).query();
        return n.localToScreen(n.getLayoutBounds());
    }

    /** Waits until a sign-in closed the dialog; else fails with what the dialog says. */
    void waitUntilSignedIn(FxRobot robot) {
        try {
            waitUntil("signed in: the dialog closed", () -> !assembly.accounts().dialogShowing());
        } catch (AssertionError e) {
            StringBuilder said = new StringBuilder();
            for (String id : List.of(
                    "#signin-servers-error",
                    "#signin-user-error",
                    "#signin-password-error",
                    "#signin-device-error",
                    "#signin-ca-file-error",
                    "#signin-error",
                    "#signin-status")) {
                said.append("\n").append(id).append(": ").append(text(robot, id));
            }
            throw new AssertionError(e.getMessage() + "; the dialog says:" + said, e);
        }
    }

    List<String> switcher(FxRobot robot) {
        ComboBox<String> account = robot.lookup("#account").query();
        return List.copyOf(account.getItems());
    }

    boolean marked(FxRobot robot, String id) {
        return robot.lookup(id).query().getPseudoClassStates().contains(DANGER);
    }

    void signIn(FxRobot robot) {
        openSignInFromTheMenu(robot, "#menu-sign-in");
        type(robot, "#signin-servers", remote.baseUrl());
        type(robot, "#signin-user", "carol");
        type(robot, "#signin-password", PASSWORD);
        robot.clickOn("#signin-submit");
        waitUntilSignedIn(robot);
        waitUntil(
                "the window shows carol",
                () -> "carol".equals(assembly.viewModel().currentUser()));
    }

    void waitForUpToDate(FxRobot robot) {
        for (Scope s : Scope.values()) {
            waitUntil(
                    "card " + s + " up to date",
                    () -> text(robot, "#status-" + s.wireName()).startsWith("Up to date"));
        }
    }

    @Test
    void everyMistakeIsSaidBesideItsFieldAtOnceWithoutMovingTheButtonsThenTheRightPasswordSignsIn(FxRobot robot)
            throws Exception {
        open(robot);
        openSignInFromTheMenu(robot, "#menu-sign-in");
        assertThat(robot.lookup("#signin-device")
                        .queryAs(TextInputControl.class)
                        .getText())
                .isNotBlank();
        Bounds submit = onScreen(robot, "#signin-submit");
        Bounds cancel = onScreen(robot, "#signin-cancel");
        Bounds password = onScreen(robot, "#signin-password");

        // nothing typed but a user name that cannot be one: all three said at once, each beside its field
        type(robot, "#signin-user", "carol smith");
        robot.clickOn("#signin-submit");
        waitUntil("the errors", () -> !text(robot, "#signin-password-error").isEmpty());
        assertThat(text(robot, "#signin-servers-error"))
                .isEqualTo("Enter the server's address, e.g. https://sync.example.org/.");
        assertThat(text(robot, "#signin-user-error"))
                .isEqualTo("'carol smith' cannot be a user name: use 1 to 64 letters, " + "digits, ., _ or -.");
        assertThat(text(robot, "#signin-password-error")).isEqualTo("Enter your password.");
        assertThat(text(robot, "#signin-device-error")).isEmpty();
        assertThat(List.of(
                        marked(robot, "#signin-servers"),
                        marked(robot, "#signin-user"),
                        marked(robot, "#signin-password"),
                        marked(robot, "#signin-device")))
                .containsExactly(true, true, true, false);
        assertThat(onScreen(robot, "#signin-submit")).isEqualTo(submit);
        assertThat(onScreen(robot, "#signin-cancel")).isEqualTo(cancel);
        assertThat(onScreen(robot, "#signin-password")).isEqualTo(password);

        // plain http to another machine is refused unless the user allows it
        type(robot, "#signin-servers", "http://sync.example.org/");
        type(robot, "#signin-user", "carol");
        type(robot, "#signin-password", "wrong");
        robot.clickOn("#signin-submit");
        waitUntil(
                "refused",
                () -> text(robot, "#signin-servers-error").startsWith("http://sync.example.org/ is plain http://"));
        assertThat(text(robot, "#signin-user-error")).isEmpty();
        assertThat(remote.stats().requests()).as("nothing was sent").isZero();

        // the server says the password is wrong: beside the password, which is emptied
        type(robot, "#signin-servers", remote.baseUrl());
        type(robot, "#signin-password", "wrong");
        robot.clickOn("#signin-submit");
        waitUntil(
                "the server answered",
                () -> !text(robot, "#signin-password-error").isEmpty());
        assertThat(text(robot, "#signin-password-error")).isEqualTo("Wrong user name or password.");
        assertThat(text(robot, "#signin-servers-error")).isEmpty();
        assertThat(marked(robot, "#signin-password")).isTrue();
        assertThat(marked(robot, "#signin-servers")).isFalse();
        assertThat(robot.lookup("#signin-password")
                        .queryAs(TextInputControl.class)
                        .getText())
                .isEmpty();
        assertThat(onScreen(robot, "#signin-submit")).isEqualTo(submit);
        assertThat(assembly.viewModel().currentUser()).isEqualTo("alice");

        type(robot, "#signin-password", PASSWORD);
        robot.clickOn("#signin-submit");
        waitUntilSignedIn(robot);
        waitUntil(
                "the window shows carol",
                () -> "carol".equals(assembly.viewModel().currentUser()));
        waitForUpToDate(robot);
        assertThat(text(robot, "#banner"))
                .isEqualTo("Signed in as carol on " + remote.baseUrl() + "/. Syncing its data now. "
                        + "The session token is kept in the owner-only file "
                        + data().resolve("credentials/tokens.json")
                        + ", because no desktop keyring answered: no session bus (DBUS_SESSION_BUS_ADDRESS is not set and there "
                        + "is no $XDG_RUNTIME_DIR/bus).");
        assertThat(switcher(robot)).as("the demo's users left the switcher").containsExactly("carol");
        ComboBox<String> account = robot.lookup("#account").query();
        assertThat(account.getConverter().toString(account.getValue())).isEqualTo("carol · 127.0.0.1:" + remote.port());
        assertThat(Files.readString(data().resolve("accounts.json")))
                .as("where the token is, never the token")
                .contains("\"carol\"", "\"token\" : \"file\"");
        assertThat(data().resolve("settings.json"))
                .satisfiesAnyOf(
                        f -> assertThat(f).doesNotExist(),
                        f -> assertThat(Files.readString(f)).doesNotContain("token"));
        assertThat(backend.runtime().serversOf("carol").toString()).isEqualTo(remote.baseUrl() + "/");
        for (Scope s : Scope.values()) {
            assertThat(backend.runtime()
                            .store()
                            .history()
                            .lastRun(new TaskKey("carol", s))
                            .orElseThrow()
                            .firstSource())
                    .as("synced at once after signing in")
                    .isEqualTo(TaskSource.MANUAL);
        }
    }

    /** Signs in as {@code user} with {@code password} straight to the server, as another program would; the status. */
    static int postSession(String baseUrl, String user, String password) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        return http.send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create(baseUrl + "/v1/sessions"))
                                .header("Content-Type", "application/json")
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"user\":\"" + user
                                        + "\",\"password\":\"" + password + "\",\"device\":\"test\"}"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    @Test
    void anUnreachableServerALockedOutUserAndAnUntrustedCertificateAreSaidBesideTheirFields(FxRobot robot)
            throws Exception {
        org.leasesync.testing.TestCertificate cert = org.leasesync.testing.TestCertificate.make(tmp.resolve("tls"));
        int closed;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = free.getLocalPort();
        }
        try (ReferenceServer tls = ReferenceServer.start(ServerConfig.defaults()
                .withSeed(Seed.NONE)
                .withTls(org.leasesync.server.ServerTls.load(cert.certFile(), tmp.resolve("tls/server-key.pem"))))) {
            ServerAccounts.add(tls, "carol", PASSWORD);
            open(robot);
            openSignInFromTheMenu(robot, "#menu-sign-in");
            Bounds submit = onScreen(robot, "#signin-submit");

            // nothing listens on the port: the server's field says so
            type(robot, "#signin-servers", "http://127.0.0.1:" + closed + "/");
            type(robot, "#signin-user", "carol");
            type(robot, "#signin-password", PASSWORD);
            robot.clickOn("#signin-submit");
            waitUntil("unreachable", () -> !text(robot, "#signin-servers-error").isEmpty());
            assertThat(text(robot, "#signin-servers-error"))
                    .startsWith("The server cannot be reached: ")
                    .contains("127.0.0.1:" + closed);
            assertThat(marked(robot, "#signin-servers")).isTrue();
            assertThat(text(robot, "#signin-password-error")).isEmpty();
            assertThat(onScreen(robot, "#signin-submit")).isEqualTo(submit);

            // ten failed sign-ins elsewhere lock the user out: even the right password is refused, with the wait
            for (int i = 0; i < 10; i++) {
                assertThat(postSession(remote.baseUrl(), "carol", "not-it")).isEqualTo(401);
            }
            assertThat(postSession(remote.baseUrl(), "carol", PASSWORD))
                    .as("locked out")
                    .isEqualTo(429);
            type(robot, "#signin-servers", remote.baseUrl());
            type(robot, "#signin-password", PASSWORD);
            robot.clickOn("#signin-submit");
            waitUntil("locked out", () -> !text(robot, "#signin-password-error").isEmpty());
            assertThat(text(robot, "#signin-password-error"))
                    .matches("Too many failed sign-ins: try again in "
                            + "\\d{1,2} mins?, \\d{1,2} secs? \\(at \\d{2}:\\d{2}\\)\\. Until then even the right "
                            + "password is refused\\.");
            assertThat(text(robot, "#signin-servers-error")).isEmpty();
            assertThat(marked(robot, "#signin-password")).isTrue();
            assertThat(marked(robot, "#signin-servers")).isFalse();
            assertThat(onScreen(robot, "#signin-submit")).isEqualTo(submit);

            // a self-signed certificate: refused, its fingerprint shown to compare, nothing signed in
            type(robot, "#signin-servers", tls.baseUrl());
            type(robot, "#signin-password", PASSWORD);
            robot.clickOn("#signin-submit");
            waitUntil("untrusted", () -> !text(robot, "#signin-servers-error").isEmpty());
            assertThat(text(robot, "#signin-servers-error"))
                    .startsWith("The certificate of ")
                    .contains("127.0.0.1:" + tls.port())
                    .endsWith(" is not trusted. Compare its SHA-256 fingerprint, "
                            + "under CA file, with your server operator's.");
            assertThat(robot.lookup("#signin-fingerprint")
                            .queryAs(TextInputControl.class)
                            .getText())
                    .isEqualTo(cert.sha256());
            assertThat(robot.lookup("#signin-fingerprint").query().isVisible()).isTrue();
            assertThat(marked(robot, "#signin-ca-file")).isTrue();
            assertThat(onScreen(robot, "#signin-submit")).isEqualTo(submit);
            assertThat(assembly.viewModel().currentUser()).isEqualTo("alice");

            // the operator's certificate as the CA file: signed in over TLS
            type(robot, "#signin-ca-file", cert.certFile().toString());
            type(robot, "#signin-password", PASSWORD);
            robot.clickOn("#signin-submit");
            waitUntilSignedIn(robot);
            waitUntil(
                    "the window shows carol",
                    () -> "carol".equals(assembly.viewModel().currentUser()));
            waitForUpToDate(robot);
            assertThat(backend.runtime().serversOf("carol").toString()).isEqualTo(tls.baseUrl() + "/");
        }
    }

    @Test
    void aSignedOutCardHoldsBackTheTimerOffersSignInAndSigningInAgainPushesTheKeptEdit(FxRobot robot) throws Exception {
        open(robot);
        signIn(robot);
        waitForUpToDate(robot);
        ServerAccounts.revokeAll(remote, "carol"); // as 'leasesync users revoke carol' does
        TaskKey courses = new TaskKey("carol", Scope.COURSE_SYNC);
        backend.runtime().edits().addEdit(courses, "course-kept", "{\"title\":\"Kept while signed out\"}", false);

        robot.clickOn("#sync-course_sync"); // Sync now still runs, and ends signed out at once
        // the headline and the button are set one after the other on the FX thread: wait for both
        waitUntil(
                "signed out",
                () -> text(robot, "#status-course_sync").equals("Signed out — sign in again")
                        && robot.lookup("#signin-course_sync").query().isVisible());
        assertThat(robot.lookup("#retry-course_sync").query().isVisible()).isFalse();
        assertThat(backend.runtime()
                        .store()
                        .history()
                        .lastRun(courses)
                        .orElseThrow()
                        .status())
                .contains(RunStatus.SIGNED_OUT);
        assertThat(backend.runtime().edits().pendingCount(courses))
                .as("the edit is kept")
                .isEqualTo(1);
        // one session serves all of carol's cards: each says so, and the tray shows its padlock
        for (Scope s : Scope.values()) {
            waitUntil(
                    s + " says signed out",
                    () -> text(robot, "#status-" + s.wireName()).equals("Signed out — sign in again"));
            assertThat(robot.lookup("#signin-" + s.wireName()).query().isVisible())
                    .isTrue();
        }
        waitUntil(
                "the tray says signed out",
                () -> !tray.views.isEmpty() && tray.last().state() == TrayState.SIGNED_OUT);
        assertThat(tray.last().tooltip()).startsWith("Signed out — sign in again · last successful sync ");

        // the timer, coming back to the window and the retry after offline ask nothing for carol now
        int runs = backend.runtime().store().history().history(courses, 100).size();
        for (TaskSource source : List.of(TaskSource.SCHEDULE, TaskSource.FOREGROUND, TaskSource.RETRY)) {
            robot.interact(() -> assembly.viewModel().backgroundTrigger(source, key -> true));
        }
        Thread.sleep(1500);
        assertThat(backend.runtime().store().history().history(courses, 100)).hasSize(runs);

        robot.clickOn("#signin-course_sync");
        waitUntil(
                "the dialog, for carol",
                () -> assembly.accounts().dialogShowing()
                        && robot.lookup("#signin-submit").tryQuery().isPresent());
        assertThat(robot.lookup("#signin-servers")
                        .queryAs(TextInputControl.class)
                        .getText())
                .isEqualTo(remote.baseUrl() + "/");
        assertThat(robot.lookup("#signin-user").queryAs(TextInputControl.class).getText())
                .isEqualTo("carol");
        assertThat(robot.lookup("#signin-password").query().isFocused())
                .as("only the password is left to type")
                .isTrue();
        robot.clickOn("#signin-password").write(PASSWORD); // Monocle gives the new window the keys after a click
        robot.clickOn("#signin-submit");
        waitUntilSignedIn(robot);
        waitUntil("the kept edit is pushed", () -> backend.runtime().edits().pendingCount(courses) == 0);
        assertThat(ServerAccounts.records(remote, "carol", "course_sync"))
                .contains("course-kept", "Kept while signed out");
        waitForUpToDate(robot);
        assertThat(robot.lookup("#signin-course_sync").query().isVisible()).isFalse();
        assertThat(backend.accounts().gate().isSignedOut("carol")).isFalse();
    }

    @Test
    void signingOutEndsTheSessionOnTheServerRemovesTheTokenAndShowsTheDemoAgain(FxRobot robot) throws Exception {
        open(robot);
        signIn(robot);
        waitForUpToDate(robot);
        int before = ServerAccounts.sessions(remote, "carol");
        assertThat(Files.readString(data().resolve("credentials/tokens.json"))).contains("carol");

        robot.clickOn("#app-menu");
        assertThat(robot.lookup("#menu-sign-in").query().isVisible())
                .as("Add account instead")
                .isFalse();
        assertThat(robot.lookup("#menu-add-account").query().isVisible()).isTrue();
        robot.clickOn("#menu-sign-out");
        // the switch and the banner are set one after the other on the FX thread: wait for both
        waitUntil(
                "the demo again",
                () -> "alice".equals(assembly.viewModel().currentUser())
                        && text(robot, "#banner").startsWith("Signed out carol"));
        assertThat(text(robot, "#banner"))
                .isEqualTo("Signed out carol on " + remote.baseUrl() + "/: the server ended the "
                        + "session. Its data stays on this device. No account is signed in now: this is the built-in demo "
                        + "server again.");
        assertThat(ServerAccounts.sessions(remote, "carol"))
                .as("the window's session ended")
                .isEqualTo(before - 1);
        assertThat(Files.readString(data().resolve("credentials/tokens.json"))).doesNotContain("carol");
        assertThat(Files.readString(data().resolve("accounts.json"))).doesNotContain("carol");
        assertThat(switcher(robot)).containsExactly("alice", "bob");
        waitForUpToDate(robot);
        assertThat(backend.runtime()
                        .store()
                        .history()
                        .lastRun(TaskKey.of("alice", "course_sync"))
                        .orElseThrow()
                        .status())
                .contains(RunStatus.SUCCEEDED);
    }
}
