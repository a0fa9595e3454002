package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.notify.NotificationPolicy;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.lease.TaskKey;
import org.leasesync.testing.ManualTime;

/**
 * The real window on the embedded server (or a given one) with a recording tray and notifier, a
 * temp autostart directory, the UK locale and London time, and a clock the test moves.
 */
final class BackgroundFixture implements AutoCloseable {

    static final Locale LOCALE = Locale.UK;
    static final ZoneId ZONE = ZoneId.of("Europe/London");

    /** A tray that records what it is shown and hands the test its menu. */
    static final class RecordingTray implements TrayPort {
        final boolean available;
        final List<TrayView> views = new CopyOnWriteArrayList<>();
        volatile TrayMenu menu;
        volatile boolean removed;

        RecordingTray(boolean available) {
            this.available = available;
        }

        @Override
        public boolean install(TrayMenu m, TrayView initial) {
            if (!available) {
                return false;
            }
            menu = m;
            views.add(initial);
            return true;
        }

        @Override
        public void show(TrayView view) {
            views.add(view);
        }

        @Override
        public void remove() {
            removed = true;
        }

        @Override
        public boolean iconShown() {
            return menu != null && !removed;
        }

        TrayView last() {
            return views.get(views.size() - 1);
        }
    }

    /**
     * A notifier that records what it is asked to show (every version of every notification) and
     * which are open; {@link #click} plays the user clicking one, {@link #dismiss} closing one.
     */
    static final class RecordingNotifier implements Notifier {
        final List<NotificationPolicy.Notice> shown = new CopyOnWriteArrayList<>();
        final java.util.Map<Long, NotificationPolicy.Notice> open = new java.util.concurrent.ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();
        volatile Consumer<TaskKey> clicked;

        @Override
        public boolean available() {
            return true;
        }

        @Override
        public long show(NotificationPolicy.Notice notice, long replaces) {
            shown.add(notice);
            long id = replaces != 0 && open.containsKey(replaces) ? replaces : ids.incrementAndGet();
            open.put(id, notice);
            return id;
        }

        @Override
        public boolean isOpen(long id) {
            return open.containsKey(id);
        }

        /** The ids withdrawn, in order. */
        final List<Long> withdrawn = new CopyOnWriteArrayList<>();

        @Override
        public void withdraw(long id) {
            if (open.remove(id) != null) {
                withdrawn.add(id);
            }
        }

        /** How many notifications were opened (a replaced one counts once). */
        long opened() {
            return ids.get();
        }

        void dismiss(long id) {
            open.remove(id);
        }

        void click(TaskKey key) {
            clicked.accept(key);
        }

        @Override
        public void close() {}
    }

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
