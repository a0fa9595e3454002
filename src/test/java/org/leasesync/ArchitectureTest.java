package org.leasesync;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package boundaries of docs/architecture.md, enforced. Each package's {@code package-info.java}
 * says what it holds and what it may import; the rules here are the same statements.
 */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.leasesync");

    private static final String[] UI_AND_IO = {
        "javafx..",
        "java.sql..",
        "javax.sql..",
        "okhttp3..",
        "com.fasterxml.jackson..",
        "com.sun.net.httpserver..",
        "org.h2..",
        "com.zaxxer..",
        "org.flywaydb..",
        "org.slf4j..",
        "ch.qos.logback..",
        "picocli.."
    };

    @Test
    void everyPackageSaysWhatItHoldsAndMayImport() throws IOException {
        Path root = Path.of("src/main/java");
        List<Path> missing;
        try (Stream<Path> dirs = Files.walk(root)) {
            missing = dirs.filter(Files::isDirectory)
                    .filter(ArchitectureTest::holdsJava)
                    .filter(d -> !Files.exists(d.resolve("package-info.java")))
                    .toList();
        }
        assertThat(missing).as("packages without a package-info.java").isEmpty();
    }

    @Test
    void noClassOfTheProductIsOver450Lines() throws IOException {
        // A class past that size has always turned out to do two jobs here; split it by job.
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            tooLong = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> lines(f) > 450)
                    .map(f -> f + " (" + lines(f) + " lines)")
                    .toList();
        }
        assertThat(tooLong).as("classes over 450 lines").isEmpty();
    }

    private static long lines(Path file) {
        try (Stream<String> l = Files.lines(file)) {
            return l.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean holdsJava(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".java"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void noPackageIsPartOfACycle() {
        slices().matching("org.leasesync.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void registryAndSyncImportNoJavaFxJdbcHttpOrJson() {
        noClasses()
                .that()
                .resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..", "org.leasesync.sync..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(UI_AND_IO)
                .check(MAIN);
    }

    @Test
    void theLeaseLayerImportsOnlyTheJdk() {
        // The lease layer is generic over lease keys (task keys and the server's job keys) and is
        // shared by the client and the server: it must stay free of any library and of runs. The
        // nullness annotations are types only, read by the compiler's checks.
        classes()
                .that()
                .resideInAPackage("org.leasesync.lease..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "org.jspecify.annotations..", "org.leasesync.lease..")
                .check(MAIN);
    }

    @Test
    void runsBuildOnLeasesOnly() {
        classes()
                .that()
                .resideInAPackage("org.leasesync.run..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..", "org.jspecify.annotations..", "org.leasesync.lease..", "org.leasesync.run..")
                .check(MAIN);
    }

    @Test
    void syncUsesNoStoreRemoteOrServerImplementation() {
        classes()
                .that()
                .resideInAPackage("org.leasesync.sync..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "org.leasesync.lease..",
                        "org.leasesync.run..",
                        "org.leasesync.sync..",
                        "org.leasesync.protocol..")
                .check(MAIN);
    }

    @Test
    void theRecordLimitsImportOnlyTheJdk() {
        // One definition of what a record may be, shared by the client and the server: it sits below
        // both, so it may know nothing of either.
        classes()
                .that()
                .resideInAPackage("org.leasesync.protocol..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "org.leasesync.protocol..")
                .check(MAIN);
    }

    @Test
    void theH2FileLayerKnowsNothingAboveIt() {
        classes()
                .that()
                .resideInAPackage("org.leasesync.store.h2..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "org.h2..",
                        "org.slf4j..",
                        "org.leasesync.lease..",
                        "org.leasesync.files..",
                        "org.leasesync.store.h2..")
                .check(MAIN);
    }

    @Test
    void ownerOnlyFilesImportOnlyTheJdk() {
        // Every writer of the client, down to the H2 file layer, and the server's data dir make their
        // directories and files through org.leasesync.files: it must sit below all of them.
        classes()
                .that()
                .resideInAPackage("org.leasesync.files..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "org.leasesync.files..")
                .check(MAIN);
    }

    @Test
    void theSharedJsonMappersImportOnlyTheJdkAndJackson() {
        // One configured mapper per kind of JSON for every package that may import Jackson: it sits
        // below all of them, so it may know nothing of leasesync.
        classes()
                .that()
                .resideInAPackage("org.leasesync.json..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "com.fasterxml.jackson..", "org.leasesync.json..")
                .check(MAIN);
    }

    @Test
    void theStoreIsNoHttpServerOrFrontEnd() {
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.store..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "okhttp3..",
                        "com.sun.net.httpserver..",
                        "org.leasesync.remote..",
                        "org.leasesync.server..",
                        "org.leasesync.client..",
                        "org.leasesync.cli..",
                        "org.leasesync.desktop..",
                        "org.leasesync.chaos..")
                .check(MAIN);
    }

    @Test
    void theProtocolClientKnowsNoStoreServerOrFrontEnd() {
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.remote..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "java.sql..",
                        "org.leasesync.store..",
                        "org.leasesync.server..",
                        "org.leasesync.client..",
                        "org.leasesync.cli..",
                        "org.leasesync.desktop..",
                        "org.leasesync.chaos..")
                .check(MAIN);
    }

    @Test
    void onlyTheWindowImportsJavaFx() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.desktop.fx..", "org.leasesync")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("javafx..")
                .check(MAIN);
    }

    @Test
    void onlyTheDesktopTalksToTheDesktopTrayAndSessionBus() {
        // The tray (AWT, and libX11 through JNA to ask for a tray host before AWT starts) and desktop
        // notifications (D-Bus) are the window's, like JavaFX: the CLI, the server and the sync core
        // stay usable with no desktop at all. The one exception is the keyring (the Secret Service on the
        // session bus), which the command line signs in with too: without a bus it falls back to a file.
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.desktop..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("java.awt..", "com.sun.jna..")
                .check(MAIN);
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.desktop..", "org.leasesync.keyring..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.freedesktop..")
                .check(MAIN);
    }

    @Test
    void theTrayAndTheBusEachLiveInTheirOwnPackage() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.desktop.tray..")
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName("java.awt.SystemTray")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("java.awt.TrayIcon")
                .orShould()
                .dependOnClassesThat()
                .resideInAnyPackage("com.sun.jna..")
                .check(MAIN);
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.desktop.notify..", "org.leasesync.keyring..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.freedesktop..")
                .check(MAIN);
    }

    @Test
    void theKeyringKnowsOnlyTheBusAndFiles() {
        // Where tokens are kept: the Secret Service (dbus-java) or an owner-only file (Jackson, made
        // through the one owner-only implementation). The client composition builds on it; it knows
        // nothing of leasesync but the exception root and the owner-only files.
        classes()
                .that()
                .resideInAPackage("org.leasesync.keyring..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "javax..",
                        "org.freedesktop..",
                        "com.fasterxml.jackson..",
                        "org.slf4j..",
                        "org.leasesync.keyring..",
                        "org.leasesync.lease..",
                        "org.leasesync.files..",
                        "org.leasesync.json..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAnyPackage(
                        "org.leasesync.lease..",
                        "org.leasesync.run..",
                        "org.leasesync.sync..",
                        "org.leasesync.store..",
                        "org.leasesync.remote..",
                        "org.leasesync.server..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.leasesync.keyring..")
                .check(MAIN);
    }

    @Test
    void theDesktopPolicyIsFreeOfUiToolkits() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "org.leasesync.desktop",
                        "org.leasesync.desktop.notify..",
                        "org.leasesync.desktop.tray..",
                        "org.leasesync.desktop.resident..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("javafx..", "org.leasesync.desktop.fx..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.desktop")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.leasesync.desktop.tray..", "org.leasesync.desktop.notify..")
                .check(MAIN);
    }

    @Test
    void viewsImportOnlyJavaFxTheirViewModelsAndTheDesktopModel() {
        // A view builds controls and binds them; what it shows and does comes from its view model,
        // so no view reaches the runs, the store, the server or the network itself. The data domains
        // (Scope) are the one value of the layers below a view names: one card per scope.
        classes()
                .that()
                .resideInAPackage("org.leasesync.desktop.fx")
                .and()
                .haveNameMatching(".*\\.[A-Za-z]*(View|Window|Dialog|Card|Detail|Controls)(\\$.*)?")
                .should()
                .onlyDependOnClassesThat(
                        resideInAnyPackage("java..", "javafx..", "org.leasesync.desktop.fx..", "org.leasesync.desktop")
                                .or(equivalentTo(org.leasesync.lease.Scope.class)))
                .check(MAIN);
    }

    @Test
    void nothingButTheLauncherAndTheDesktopImportsTheDesktop() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.desktop..", "org.leasesync")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.leasesync.desktop..")
                .check(MAIN);
    }

    @Test
    void theWindowAndTheCommandLineShareTheClientCompositionNotEachOther() {
        // A client process (database, registry, heartbeat, coordinator, HTTP, worker) is composed by
        // org.leasesync.client.ClientRuntime, which the window (desktop) and the command line (cli)
        // both use. Neither imports the other: the CLI never starts the window itself — the launcher
        // (org.leasesync.Launcher) hands it a function that does — and the window never needs picocli.
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.desktop..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.leasesync.cli..", "picocli..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.leasesync.desktop..")
                .check(MAIN);
    }

    @Test
    void theClientCompositionKnowsNoFrontEndAndNoLayerBelowKnowsIt() {
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.client..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.leasesync.cli..",
                        "org.leasesync.desktop..",
                        "org.leasesync.chaos..",
                        "org.leasesync.server..",
                        "javafx..",
                        "picocli..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAnyPackage(
                        "org.leasesync.lease..",
                        "org.leasesync.run..",
                        "org.leasesync.sync..",
                        "org.leasesync.store..",
                        "org.leasesync.remote..",
                        "org.leasesync.server..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.leasesync.client..")
                .check(MAIN);
    }

    @Test
    void nothingButTheLauncherImportsTheChaosHarness() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.leasesync.chaos..", "org.leasesync")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.leasesync.chaos..")
                .check(MAIN);
    }

    @Test
    void theServerIsARegistryUserButNoClient() {
        // The server runs its own periodic jobs as registry tasks (job keys, leases, fenced writes), so
        // it may import the lease layer and the store (JdbcLeaseStore, JdbcGuard over its own pool,
        // docs/architecture.md "The server as a registry user"); it never imports the client's runs
        // and sync, its protocol client, the CLI, the window or the chaos harness.
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.server..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.leasesync.run..",
                        "org.leasesync.sync..",
                        "org.leasesync.remote..",
                        "org.leasesync.cli..",
                        "org.leasesync.desktop..",
                        "org.leasesync.chaos..")
                .check(MAIN);
    }

    @Test
    void theServersJobsDependOnTheRegistryAndStoreNotOnTheServerAroundThem() {
        // server.jobs is the server's registry user; the server wires it (ServerJobs) and reads the
        // tombstone horizon from it, never the other way round.
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.server.jobs..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.leasesync.server",
                        "org.leasesync.server.http..",
                        "org.leasesync.server.store..",
                        "org.leasesync.server.demo..",
                        "org.leasesync.server.protocol..",
                        "org.leasesync.server.faults..")
                .check(MAIN);
    }

    @Test
    void theServersLayersPointDownward() {
        // protocol values at the bottom, then the stores, then HTTP, then the composition.
        classes()
                .that()
                .resideInAPackage("org.leasesync.server.protocol..")
                .should()
                .onlyDependOnClassesThat(resideOutsideOfPackage("org.leasesync..")
                        .or(resideInAnyPackage("org.leasesync.server.protocol..", "org.leasesync.protocol..")))
                .check(MAIN);
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.server.faults..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.leasesync.server",
                        "org.leasesync.server.http..",
                        "org.leasesync.server.store..",
                        "org.leasesync.server.demo..",
                        "org.leasesync.server.jobs..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.server.store..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.leasesync.server",
                        "org.leasesync.server.http..",
                        "org.leasesync.server.demo..",
                        "org.leasesync.server.faults..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.server.demo..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.leasesync.server", "org.leasesync.server.http..")
                .check(MAIN);
        noClasses()
                .that()
                .resideInAPackage("org.leasesync.server.http..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.leasesync.server", "org.leasesync.server.demo..")
                .check(MAIN);
    }

    @Test
    void theLeaseLayerAndTheStoreKnowNothingOfTheServer() {
        noClasses()
                .that()
                .resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..", "org.leasesync.store..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.leasesync.server..")
                .check(MAIN);
    }

    @Test
    void businessCodeReadsTimeOnlyThroughTheInjectedSource() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "org.leasesync.lease..",
                        "org.leasesync.run..",
                        "org.leasesync.sync..",
                        "org.leasesync.store..",
                        "org.leasesync.server..")
                .should()
                .callMethod(java.time.Instant.class, "now")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .check(MAIN);
    }
}
