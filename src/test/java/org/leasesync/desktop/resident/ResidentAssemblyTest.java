package org.leasesync.desktop.resident;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.Pause;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.tray.TrayState;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RunRecord;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.RecordingNotifier;
import org.leasesync.testing.RecordingTray;
import org.leasesync.testing.TestAppSettings;

/**
 * The tray process's composition on a real backend (local H2 file, the embedded demo server on
 * loopback, real timers), with a recording tray and notifier: what the icon shows, what its menu does,
 * and what goes to the window.
 */
@Timeout(120)
class ResidentAssemblyTest {

    @TempDir
    Path tmp;

    final RecordingTray tray = new RecordingTray(true);
    final RecordingNotifier notifier = new RecordingNotifier();
    /** What the assembly asked of the window: "open", "open at SCOPE", "settings", "quit". */
    final List<String> exits = new CopyOnWriteArrayList<>();

    Backend backend;
    ResidentAssembly assembly;

    @AfterEach
    void close() {
        if (assembly != null) {
            assembly.close();
        }
        if (backend != null) {
            backend.close();
        }
    }

    ResidentAssembly start(RecordingTray t, Duration scheduleInterval, boolean atLogin) {
        Backend.AppSettings settings = TestAppSettings.of(tmp.resolve("data"), scheduleInterval, TimeSource.system());
        backend = Backend.start(settings);
        String user = Resident.chooseUser(backend.accounts(), null).orElseThrow();
        assembly = new ResidentAssembly(
                backend,
                StartOptions.of(settings),
                user,
                new Messages(Locale.UK, ZoneId.of("Europe/London")),
                new TrayDesktop(
                        t,
                        clicked -> {
                            notifier.clicked = clicked;
                            return notifier;
                        },
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(5)),
                new ResidentAssembly.Exits() {
                    @Override
                    public void open(Optional<Scope> at, boolean settings) {
                        exits.add(
                                settings
                                        ? "settings"
                                        : at.map(s -> "open at " + s.name()).orElse("open"));
                    }

                    @Override
                    public void quit() {
                        exits.add("quit");
                    }
                });
        assembly.start(atLogin);
        return assembly;
    }

    String user() {
        return Resident.chooseUser(backend.accounts(), null).orElseThrow();
    }

    List<RunRecord> runs(Scope s) {
        return backend.runtime().store().runs().history(new TaskKey(user(), s), 100);
    }

    int runCount() {
        int n = 0;
        for (Scope s : Scope.values()) {
            n += runs(s).size();
        }
        return n;
    }

    static void waitUntil(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(50);
        }
    }

    @Test
    void idleInTheTrayItLeavesTheDatabaseFileClosed() throws Exception {
        start(tray, Duration.ofHours(1), false);
        Path lock = org.leasesync.store.h2.DataDirectory.lockFile(tmp.resolve("data"));
        waitUntil("the database file closed: no lock file, so no watchdog", () -> !java.nio.file.Files.exists(lock));
        assertThat(tray.last().tooltip())
                .as("the icon still shows the stored state")
                .isNotBlank();
    }

    @Test
    void startedAtLoginItSyncsEveryScopeOnceAndTheIconSaysUpToDate() throws Exception {
        start(tray, Duration.ofHours(1), true);
        waitUntil("every scope synced", () -> {
            for (Scope s : Scope.values()) {
                if (backend.runtime()
                        .store()
                        .runs()
                        .lastSucceeded(new TaskKey(user(), s))
                        .isEmpty()) {
                    return false;
                }
            }
            return true;
        });
        waitUntil(
                "the icon says up to date",
                () -> tray.last().state() == TrayState.UP_TO_DATE
                        && tray.last().tooltip().startsWith("Up to date"));
        for (Scope s : Scope.values()) {
            assertThat(runs(s)).hasSize(1);
            assertThat(runs(s).get(0).firstSource()).isEqualTo(TaskSource.FOREGROUND);
        }
        assertThat(assembly.iconShown()).isTrue();
        assertThat(tray.last().paused()).isFalse();
        assertThat(exits).isEmpty();
    }

    @Test
    void handedOverItStartsNoSyncOfItsOwnUntilTheTimer() throws Exception {
        start(tray, Duration.ofHours(1), false);
        waitUntil("the icon is in the tray", () -> tray.menu != null);
        Thread.sleep(1500); // the start's own work is done by then
        assertThat(runCount()).as("no login sync after a handover").isZero();
    }

    @Test
    void theTimerSyncsAndThePauseFromTheMenuHoldsItBackUntilResumed() throws Exception {
        start(tray, Duration.ofSeconds(1), false);
        waitUntil("the timer synced every scope", () -> {
            for (Scope s : Scope.values()) {
                if (runs(s).isEmpty()) {
                    return false;
                }
            }
            return true;
        });
        assertThat(runs(Scope.BACKUP).get(0).firstSource()).isEqualTo(TaskSource.SCHEDULE);
        tray.menu.pause().accept(Pause.Option.UNTIL_RESUMED);
        waitUntil(
                "the icon says paused",
                () -> tray.last().state() == TrayState.PAUSED && tray.last().paused());
        waitUntil(
                "no run in progress",
                () -> backend.runtime().coordinator().localRuns().isEmpty());
        int before = runCount();
        Thread.sleep(3500); // three timer ticks
        assertThat(runCount()).as("no run starts while paused").isEqualTo(before);
        tray.menu.resume().run();
        waitUntil("the icon is not paused", () -> !tray.last().paused());
        waitUntil("the timer syncs again", () -> runCount() > before);
    }

    @Test
    void syncAllFromTheMenuIsTheUsersOwnTrigger() throws Exception {
        start(tray, Duration.ofHours(1), false);
        waitUntil("the icon is in the tray", () -> tray.menu != null);
        tray.menu.syncAll().run();
        waitUntil("every scope synced", () -> {
            for (Scope s : Scope.values()) {
                if (runs(s).isEmpty()) {
                    return false;
                }
            }
            return true;
        });
        for (Scope s : Scope.values()) {
            assertThat(runs(s).get(0).firstSource()).isEqualTo(TaskSource.MANUAL);
        }
    }

    @Test
    void openSettingsQuitAndANotificationClickGoToTheWindow() throws Exception {
        start(tray, Duration.ofHours(1), false);
        waitUntil("the notifier is connected", () -> notifier.clicked != null);
        tray.menu.open().run();
        tray.menu.settings().run();
        notifier.click(new TaskKey(user(), Scope.MESSAGE_SYNC));
        tray.menu.quit().run();
        assertThat(exits).containsExactly("open", "settings", "open at MESSAGE_SYNC", "quit");
    }

    @Test
    void withoutATrayItAsksForTheWindowAndStartsNoTimer() throws Exception {
        RecordingTray none = new RecordingTray(false);
        start(none, Duration.ofSeconds(1), false);
        assertThat(exits).containsExactly("open");
        assertThat(assembly.iconShown()).isFalse();
        Thread.sleep(2500); // two timer intervals
        assertThat(runCount()).as("the timer is the window's now").isZero();
    }

    @Test
    void closeTakesTheIconOutAndStopsTheTimer() throws Exception {
        start(tray, Duration.ofSeconds(1), false);
        waitUntil("the timer synced", () -> runCount() > 0);
        assembly.close();
        assertThat(tray.removed).isTrue();
        assertThat(assembly.iconShown()).isFalse();
        waitUntil(
                "no run in progress",
                () -> backend.runtime().coordinator().localRuns().isEmpty());
        int before = runCount();
        Thread.sleep(2500);
        assertThat(runCount()).isEqualTo(before);
    }
}
