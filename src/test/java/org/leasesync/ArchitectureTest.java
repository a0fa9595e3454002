package org.leasesync;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Design.md §4: the package boundaries, enforced. */
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.leasesync");

    @Test
    void registryAndSyncImportNoJavaFxJdbcHttpOrJson() {
        noClasses().that().resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..", "org.leasesync.sync..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "java.sql..", "javax.sql..",
                        "okhttp3..", "com.fasterxml.jackson..", "com.sun.net.httpserver..", "org.h2..",
                        "com.zaxxer..", "org.flywaydb..", "org.slf4j..", "ch.qos.logback..", "picocli..")
                .check(MAIN);
    }

    @Test
    void onlyAppImportsJavaFx() {
        noClasses().that().resideOutsideOfPackages("org.leasesync.desktop..", "org.leasesync")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..")
                .check(MAIN);
    }

    @Test
    void onlyAppTalksToTheDesktopTrayAndSessionBus() {
        // The tray (AWT, and libX11 through JNA to ask for a tray host before AWT starts) and desktop
        // notifications (D-Bus) are the window's, like JavaFX: the CLI, the server and the sync core
        // stay usable with no desktop at all.
        noClasses().that().resideOutsideOfPackages("org.leasesync.desktop..")
                .should().dependOnClassesThat().resideInAnyPackage("java.awt..", "org.freedesktop..", "com.sun.jna..")
                .check(MAIN);
    }

    @Test
    void nothingButTheLauncherAndAppImportsApp() {
        noClasses().that().resideOutsideOfPackages("org.leasesync.desktop..", "org.leasesync")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.desktop..")
                .check(MAIN);
    }

    @Test
    void theWindowAndTheCommandLineShareTheClientCompositionNotEachOther() {
        // A client process (database, registry, heartbeat, coordinator, HTTP, worker) is composed by
        // org.leasesync.client.ClientRuntime, which the window (app) and the command line (cli) both
        // use. Neither imports the other: the CLI never starts the window itself — the launcher
        // (org.leasesync.Launcher) hands it a function that does — and the window never needs picocli.
        noClasses().that().resideInAPackage("org.leasesync.desktop..")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.cli..", "picocli..")
                .check(MAIN);
        noClasses().that().resideInAPackage("org.leasesync.cli..")
                .should().dependOnClassesThat().resideInAPackage("org.leasesync.desktop..")
                .check(MAIN);
    }

    @Test
    void theClientCompositionKnowsNoFrontEndAndNoLayerBelowKnowsIt() {
        noClasses().that().resideInAPackage("org.leasesync.client..")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.cli..", "org.leasesync.desktop..",
                        "org.leasesync.chaos..", "org.leasesync.server..", "javafx..", "picocli..")
                .check(MAIN);
        noClasses().that().resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..", "org.leasesync.sync..", "org.leasesync.store..",
                        "org.leasesync.remote..", "org.leasesync.server..")
                .should().dependOnClassesThat().resideInAPackage("org.leasesync.client..")
                .check(MAIN);
    }

    @Test
    void nothingButTheLauncherImportsTheChaosHarness() {
        noClasses().that().resideOutsideOfPackages("org.leasesync.chaos..", "org.leasesync")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.chaos..")
                .check(MAIN);
    }

    @Test
    void registryDependsOnNoOtherLeasesyncPackage() {
        noClasses().that().resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.store..", "org.leasesync.remote..",
                        "org.leasesync.sync..", "org.leasesync.server..", "org.leasesync.cli..", "org.leasesync.desktop..")
                .check(MAIN);
    }

    @Test
    void registryImportsOnlyTheJdk() {
        // The lease layer is generic over lease keys (task keys and the server's job keys) and is
        // shared by the client and the server: it must stay free of any library.
        classes().that().resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.leasesync.lease..", "org.leasesync.run..")
                .check(MAIN);
    }

    @Test
    void syncUsesNoStoreRemoteOrServerImplementation() {
        noClasses().that().resideInAPackage("org.leasesync.sync..")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.store..", "org.leasesync.remote..",
                        "org.leasesync.server..", "org.leasesync.cli..", "org.leasesync.desktop..")
                .check(MAIN);
    }

    @Test
    void theServerIsARegistryUserButNoClient() {
        // The server runs its own periodic jobs as registry tasks (job keys, leases, fenced writes), so
        // it may import the registry and the store (JdbcLeaseStore, JdbcGuard over its own pool,
        // docs/architecture.md "The server as a registry user"); it never imports the client's sync,
        // its protocol client, the CLI, the window or the chaos harness.
        noClasses().that().resideInAPackage("org.leasesync.server..")
                .should().dependOnClassesThat().resideInAnyPackage("org.leasesync.sync..", "org.leasesync.remote..",
                        "org.leasesync.cli..", "org.leasesync.desktop..", "org.leasesync.chaos..")
                .check(MAIN);
    }

    @Test
    void theServersJobsDependOnTheRegistryAndStoreNotOnTheServerAroundThem() {
        // server.jobs is the server's registry user; the server wires it (ServerJobs) and reads the
        // tombstone horizon from it, never the other way round.
        noClasses().that().resideInAPackage("org.leasesync.server.jobs..")
                .should().dependOnClassesThat().resideInAPackage("org.leasesync.server")
                .check(MAIN);
    }

    @Test
    void theRegistryAndTheStoreKnowNothingOfTheServer() {
        noClasses().that().resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..", "org.leasesync.store..")
                .should().dependOnClassesThat().resideInAPackage("org.leasesync.server..")
                .check(MAIN);
    }

    @Test
    void businessCodeReadsTimeOnlyThroughTheInjectedSource() {
        noClasses().that().resideInAnyPackage("org.leasesync.lease..", "org.leasesync.run..", "org.leasesync.sync..", "org.leasesync.store..",
                        "org.leasesync.server..")
                .should().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .check(MAIN);
    }
}
