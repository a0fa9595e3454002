package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Messages;
import org.leasesync.testing.ManualTime;
import org.leasesync.testing.RecordingNotifier;
import org.leasesync.testing.RecordingTray;

/**
 * The real window on the embedded server (or a given one) with a recording tray and notifier, a
 * temp autostart directory, the UK locale and London time, and a clock the test moves.
 */
final class BackgroundFixture implements AutoCloseable {

    static final Locale LOCALE = Locale.UK;
    static final ZoneId ZONE = ZoneId.of("Europe/London");

    final ManualTime time;
    final Path dataDir;
    final RecordingTray tray;
    final RecordingNotifier notifier = new RecordingNotifier();
    final AtomicInteger exits = new AtomicInteger();
    final List<Boolean> implicitExit = new CopyOnWriteArrayList<>();
    final Backend backend;
    final AppAssembly assembly;

    /**
     * @param settings the app's settings (data directory, server, schedule interval, time)
     * @param configHome where the autostart entry goes
     */
    BackgroundFixture(
            Stage stage,
            Backend.AppSettings settings,
            ManualTime time,
            boolean trayAvailable,
            Path configHome,
            Duration probeFirst,
            Duration probeMax) {
        this.time = time;
        this.dataDir = settings.dataDir();
        this.tray = new RecordingTray(trayAvailable);
        this.backend = Backend.start(settings);
        HostDesktop parts = new HostDesktop(
                new Messages(LOCALE, ZONE),
                tray,
                clicked -> {
                    notifier.clicked = clicked;
                    return notifier;
                },
                new Autostart(
                        configHome,
                        configHome.resolveSibling("share"),
                        Optional.of(List.of("/opt/leasesync/bin/leasesync"))),
                implicitExit::add,
                exits::incrementAndGet,
                probeFirst,
                probeMax);
        AppAssembly a;
        try {
            a = new AppAssembly(backend, settings, stage, Platform::runLater, parts);
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        this.assembly = a;
    }

    static Backend.AppSettings settings(Path dataDir, Duration scheduleInterval, ManualTime time) {
        return UiTestSupport.settings(dataDir, scheduleInterval, time);
    }

    MainViewModel vm() {
        return assembly.viewModel();
    }

    @Override
    public void close() {
        // the caller runs this on the FX thread through robot.interact for the assembly's part
        backend.close();
    }
}
