package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.OtherAccount;
import org.leasesync.testing.OtherAccountProbe;
import org.leasesync.testing.ProcessTest;

/**
 * What other accounts on the machine can reach of a client's data directory, with real processes:
 * a directory the user made with {@code mkdir} under umask 022 (0755), and whatever an earlier
 * version left 0644 in it, is owner-only after a {@code sync}; a directory of another account is
 * refused and left as it is; and while a client process hosts the shared database (H2's automatic
 * mixed mode), an account that is not the owner can read none of its files and cannot connect to
 * the database server it runs for the owner's other processes — which still connect.
 *
 * <p>Runs as root (as CI does) to hand directories to {@code nobody} and run the probe as it.
 */
@ProcessTest
class OwnerOnlyDataDirProcessTest {

    @TempDir
    Path tmp;

    ReferenceServer server;

    @BeforeEach
    void setUp() throws Exception {
        OtherAccount.require();
        server = ReferenceServer.start(ServerConfig.defaults());
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void aDirectoryMadeWithMkdirUnderUmask022IsOwnerOnlyWithEverythingInItAfterASync() throws Exception {
        Path data = Files.createDirectory(tmp.resolve("data"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        // What the user's editor, or an earlier version of leasesync, left readable to everyone.
        Path settings = Files.writeString(data.resolve("settings.json"), "{ \"notifications\" : true }\n");
        Files.setPosixFilePermissions(settings, PosixFilePermissions.fromString("rw-r--r--"));
        Path logs = Files.createDirectory(data.resolve("logs"));
        Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path oldLog = Files.writeString(logs.resolve("leasesync.log"), "an earlier run\n");
        Files.setPosixFilePermissions(oldLog, PosixFilePermissions.fromString("rw-r--r--"));
        // A sign-in's files, copied in by hand: this sync, with a token for the run, writes neither,
        // but opening the data directory tightens them as everything else of leasesync's there.
        Path accounts = Files.writeString(data.resolve("accounts.json"), "{\"accounts\": []}\n");
        Files.setPosixFilePermissions(accounts, PosixFilePermissions.fromString("rw-r--r--"));
        Path credentials = Files.createDirectory(data.resolve("credentials"));
        Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path tokens = Files.writeString(credentials.resolve("tokens.json"), "{\"tokens\": []}\n");
        Files.setPosixFilePermissions(tokens, PosixFilePermissions.fromString("rw-r--r--"));
        // Not leasesync's: a --data-dir may hold the user's own files, which stay as they are.
        Path own = Files.writeString(data.resolve("notes.txt"), "mine\n");
        Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rw-r--r--"));
        Path control = tmp.resolve("umask-control");

        CliProcess.Result first = CliProcess.startUnderUmask(tmp, "sync-1", "022", control, sync(data))
                .await(120);

        assertThat(first.code()).as(first.both()).isZero();
        assertThat(perms(control)).as("the child ran under umask 022").isEqualTo("rw-r--r--");
        assertThat(names(data))
                .as("what the sync wrote")
                .contains(
                        "leasesync.mv.db",
                        "leasesync.lock.owner",
                        "logs",
                        "settings.json",
                        "accounts.json",
                        "credentials");
        assertThat(Files.readString(oldLog)).as("tightened, not replaced").startsWith("an earlier run\n");
        assertThat(perms(own)).as("the user's own file").isEqualTo("rw-r--r--");
        Files.delete(own);
        assertThat(OtherAccount.notOwnerOnly(data))
                .as("entries that are not 0700 / 0600 after the first sync")
                .isEmpty();

        // Everything loosened again, as the version before this one left a data directory.
        loosen(data);
        CliProcess.Result second = CliProcess.startUnderUmask(tmp, "sync-2", "022", control, sync(data))
                .await(120);

        assertThat(second.code()).as(second.both()).isZero();
        assertThat(OtherAccount.notOwnerOnly(data))
                .as("entries that are not 0700 / 0600 after the second sync")
                .isEmpty();
    }

    @Test
    void aDataDirectoryOfAnotherAccountIsRefusedNamingItAndLeftAsItIs() throws Exception {
        Path data = Files.createDirectory(tmp.resolve("theirs"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        OtherAccount.chown(data);

        CliProcess.Result r = CliProcess.start(tmp, "sync-theirs", sync(data)).await(120);

        assertThat(r.code()).as(r.both()).isEqualTo(2);
        assertThat(r.err())
                .as(r.both())
                .contains("the data directory " + data + " belongs to nobody, not to you (root)")
                .contains("Choose another one with --data-dir or LEASESYNC_DATA_DIR")
                .contains("chown -R root " + data);
        assertThat(names(data)).as("nothing written there").isEmpty();
        assertThat(perms(data)).isEqualTo("rwxr-xr-x");
        assertThat(Files.getOwner(data).getName()).isEqualTo("nobody");

        // A read-only command on another account's database is refused too, before H2 writes there.
        Path filled = Files.createDirectory(tmp.resolve("filled"));
        assertThat(CliProcess.start(tmp, "sync-filled", sync(filled)).await(120).code())
                .isZero();
        chownTree(filled);
        CliProcess.Result status = CliProcess.start(
                        tmp, "status-theirs", List.of("status", "--data-dir", filled.toString()))
                .await(120);
        assertThat(status.code()).as(status.both()).isNotZero();
        assertThat(status.err())
                .as(status.both())
                .contains("the data directory " + filled + " belongs to nobody, not to you (root)");
        assertThat(Files.getOwner(filled.resolve("leasesync.mv.db")).getName()).isEqualTo("nobody");
        assertThat(names(filled)).doesNotContain("leasesync.lock.db");
    }

    @Test
    void anotherAccountCanNeitherReadTheFilesNorConnectToTheHostsDatabaseServerWhileTheOwnersProcessesCan()
            throws Exception {
        // nobody may pass through the test's directory to what is in it, not list it: only the data
        // directory's own permissions stand between it and the files.
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path data = Files.createDirectory(tmp.resolve("data"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path probe = probeClassPath();

        Process host = JavaProcess.start(HoldDatabaseMain.class, tmp.resolve("host.log"), data.toString());
        try {
            awaitReady(host, tmp.resolve("host.log"));
            Properties lock = new Properties();
            try (InputStream in = Files.newInputStream(data.resolve("leasesync.lock.db"))) {
                lock.load(in);
            }
            String address = lock.getProperty("server");
            String port = address.substring(address.lastIndexOf(':') + 1);
            String key = lock.getProperty("id");
            assertThat(OtherAccount.notOwnerOnly(data))
                    .as("while a process hosts the database")
                    .isEmpty();

            OtherAccount.Result attack = OtherAccount.runAsNobody(List.of(
                    java(),
                    "-XX:-UsePerfData",
                    "-cp",
                    probe.resolve("h2.jar") + JavaProcess.separator() + probe,
                    OtherAccountProbe.class.getName(),
                    data.toString(),
                    port,
                    key));

            String out = attack.output();
            assertThat(attack.code()).as(out).isZero();
            assertThat(out)
                    .as("what nobody could do")
                    .contains("read-lock-file: refused AccessDeniedException")
                    .contains("list-data-dir: refused AccessDeniedException")
                    .contains("read-database-file: refused AccessDeniedException")
                    .containsPattern("open-file-url: refused \\d+ ")
                    .contains("tcp-guessed-key: refused 28000 Wrong user name or password")
                    .contains("tcp-database-path: refused 28000 Wrong user name or password")
                    // The control: with the key, nobody does reach the server — the key is the only
                    // credential H2 asks for, so the lock file that holds it must stay unreadable.
                    .contains("tcp-with-the-key: ok connected");

            CliProcess.Result owners = CliProcess.start(
                            tmp, "status-owner", List.of("status", "--data-dir", data.toString()))
                    .await(120);
            assertThat(owners.code())
                    .as("the owner's second process shares the database: " + owners.both())
                    .isZero();
            assertThat(owners.out()).contains("data directory: " + data);
        } finally {
            host.getOutputStream().close();
            if (!host.waitFor(30, TimeUnit.SECONDS)) {
                host.destroyForcibly().waitFor();
            }
        }
    }

    private List<String> sync(Path data) {
        return List.of(
                "sync",
                "--user",
                "alice",
                "--scope",
                "course_sync",
                "--server",
                server.baseUrl(),
                "--token",
                server.tokenFor("alice"),
                "--data-dir",
                data.toString());
    }

    /** The probe's classes and H2's jar, copied where nobody can read them (the build tree is root's). */
    private Path probeClassPath() throws Exception {
        Path probe = Files.createDirectory(tmp.resolve("probe"));
        Path h2 = Path.of(org.h2.Driver.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Files.copy(h2, probe.resolve("h2.jar"));
        Path classes = Path.of(OtherAccountProbe.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path pkg = Path.of(OtherAccountProbe.class.getPackageName().replace('.', '/'));
        Files.createDirectories(probe.resolve(pkg));
        try (Stream<Path> files = Files.list(classes.resolve(pkg))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith("OtherAccountProbe"))
                    .toList()) {
                Files.copy(f, probe.resolve(pkg).resolve(f.getFileName()));
            }
        }
        try (Stream<Path> all = Files.walk(probe)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(
                        p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return probe;
    }

    private static void awaitReady(Process host, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains("READY")) {
                return;
            }
            if (!host.isAlive()) {
                throw new AssertionError("the host process ended: " + Files.readString(log));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the host process did not open the database within 90 s: " + Files.readString(log));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void loosen(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.filter(p -> !Files.isSymbolicLink(p)).toList()) {
                Files.setPosixFilePermissions(
                        p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }

    private static void chownTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                OtherAccount.chown(p);
            }
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static String perms(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
