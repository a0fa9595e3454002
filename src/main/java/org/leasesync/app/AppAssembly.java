package org.leasesync.app;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.leasesync.cli.ClientRuntime;
import org.leasesync.cli.DurationConverter;
import org.leasesync.cli.NamedThreads;
import org.leasesync.registry.RunEvent;
import org.leasesync.registry.RunRecord;
import org.leasesync.registry.RunStatus;
import org.leasesync.registry.Scope;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskSource;
import org.leasesync.remote.ServerProbe;

/**
 * The composition root of the window: view models, views, the three triggers and the status
 * refresh, on a given {@link Backend}; and living in the background on the given {@link DesktopParts}
 * — tray, pause, offline, notifications, start at login. Used by {@link App} and by the UI tests.
 *
 * <p>Executors it owns: {@code ui-actions} (coordinator calls and file writes off the FX thread),
 * {@code server-probe} (offline probes), {@code notifier} (notification checks and D-Bus calls).
 * Timers run on the runtime's {@code sync-timer} scheduler. {@link #close()} stops them; the
 * backend is closed by its owner.
 */
public final class AppAssembly implements AutoCloseable {

    /** How often stored state is re-read (runs of other processes, scheduled retries). */
    static final Duration REFRESH = Duration.ofSeconds(2);
    /** How often the notification check looks at the database besides after each run. */
    static final Duration NOTIFY_RECHECK = Duration.ofSeconds(10);
    /** The most one offline probe may take per server URL. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AppAssembly.class);

    private final Backend backend;
    private final Backend.AppSettings settings;
    private final Stage stage;
    private final Executor ui;
    private final DesktopParts parts;
    private final ExecutorService actionThread = Executors.newSingleThreadExecutor(new NamedThreads("ui-actions", true));
    /** Background work of the views; silently dropped once the window is closing. */
    private final Executor actions = task -> {
        try {
            actionThread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("window closing; dropped a background task");
        }
    };
    private final ScheduledExecutorService probeThread = Executors.newSingleThreadScheduledExecutor(
            new NamedThreads("server-probe", true));
    private final ScheduledExecutorService notifyThread = Executors.newSingleThreadScheduledExecutor(
            new NamedThreads("notifier", true));
    private final java.util.function.Consumer<RunEvent> onRunEvent;
    private final MainViewModel vm;
    private final DataViewModel data;
    private final HistoryViewModel history;
    private final QaViewModel qa;
    private final DesktopViewModel desktop;
    private final ScheduleTrigger schedule;
    private final ForegroundTrigger foreground;
    private final ForegroundPolicy foregroundPolicy;
    private final SettingsFile settingsFile;
    private final ServerProbe serverProbe;
    private final OfflineMonitor offline;
    private final AttentionWatcher attention;
    private final TrayController tray;
    private final WindowLifecycle lifecycle;
    private final Map<TaskKey, Instant> successSeen = new ConcurrentHashMap<>();
    private volatile DesktopNotifier notifier = DesktopNotifier.NONE;
    private ScheduledFuture<?> refresher;
    private QaWindow qaWindow;

    /** With no tray, no notifications and no autostart (the UI tests that do not test them). */
    public AppAssembly(Backend backend, Backend.AppSettings settings, Stage stage, Executor ui) {
        this(backend, settings, stage, ui, new DesktopParts(Messages.system(), NoTray.INSTANCE,
                clicked -> DesktopNotifier.NONE,
                new Autostart(settings.dataDir().resolve("no-autostart"), Optional.empty()), exit -> { }, () -> { },
                DesktopParts.PROBE_FIRST, DesktopParts.PROBE_MAX));
    }

    /** @param ui runs on the FX thread ({@code Platform::runLater}) */
    AppAssembly(Backend backend, Backend.AppSettings settings, Stage stage, Executor ui, DesktopParts parts) {
        this.backend = backend;
        this.settings = settings;
        this.stage = stage;
        this.ui = ui;
        this.parts = parts;
        ClientRuntime rt = backend.runtime();
        Messages messages = parts.messages();
        StatusTexts texts = new StatusTexts(messages);
        this.settingsFile = new SettingsFile(settings.dataDir(), settings.time());
        SettingsFile.Loaded loaded = settingsFile.load();
        DesktopViewModel[] desktopRef = new DesktopViewModel[1];
        PauseControl pause = new PauseControl(settingsFile, settings.time(), messages.zone(), actions,
                reason -> ui.execute(() -> desktopRef[0].notice(messages.get("banner.settingsNotSaved", reason))));
        this.vm = new MainViewModel(rt.coordinator(), actions, ui, texts, backend.accounts(),
                sink -> new StatusTracker(rt.store().runs(), rt.coordinator(), ui, sink), pause, settings.time());
        this.desktop = new DesktopViewModel(vm, settingsFile, pause, parts.autostart(), actions, ui, settings.time(), texts);
        desktopRef[0] = desktop;
        loaded.problem().ifPresent(p -> desktop.notice(messages.get("banner.settingsUnreadable", p.reason(), p.keptAs())));
        this.data = new DataViewModel(rt.edits(), vm, actions, ui, messages.zone());
        this.history = new HistoryViewModel(rt.store().runs(), vm, actions, ui, messages.zone());
        this.qa = new QaViewModel(rt.coordinator(), rt.registry(), backend.embeddedServer(), vm, actions, ui,
                settings.time());
        this.schedule = new ScheduleTrigger(rt.timer(), settings.scheduleInterval(),
                () -> ui.execute(() -> vm.backgroundTrigger(TaskSource.SCHEDULE, key -> true)));
        this.foregroundPolicy = new ForegroundPolicy(Duration.ofSeconds(2), settings.foregroundMinInterval());
        java.util.function.Predicate<TaskKey> foregroundDue = key -> foregroundPolicy.due(
                rt.store().runs().lastSucceeded(key).flatMap(RunRecord::endedAt), settings.time().now());
        this.foreground = new ForegroundTrigger(stage, foregroundPolicy, settings.time(),
                () -> vm.backgroundTrigger(TaskSource.FOREGROUND, foregroundDue));

        this.serverProbe = new ServerProbe(backend.servers(), PROBE_TIMEOUT);
        this.offline = new OfflineMonitor(serverProbe::probe, probeThread, settings.time(), parts.probeFirst(),
                parts.probeMax(), new OfflineMonitor.Listener() {
                    @Override
                    public void offline(Instant nextTry) {
                        Map<Scope, Integer> waiting = pendingCounts();
                        ui.execute(() -> desktop.offline(nextTry, waiting));
                    }

                    @Override
                    public void backOnline() {
                        ui.execute(desktop::backOnline);
                    }
                });
        this.attention = new AttentionWatcher(rt.store().runs(), rt.edits(), () -> vm.tracker().user(),
                new NotificationPolicy(messages), () -> offline.nextTry().isPresent(),
                () -> settingsFile.current().notifications(), new DesktopNotifier() {
                    @Override
                    public boolean available() {
                        return notifier.available();
                    }

                    @Override
                    public long show(NotificationPolicy.Notice n, long replaces) {
                        return notifier.show(n, replaces);
                    }

                    @Override
                    public boolean isOpen(long id) {
                        return notifier.isOpen(id);
                    }

                    @Override
                    public void close() {
                    }
                }, notifyThread, NOTIFY_RECHECK);
        this.onRunEvent = e -> {
            if (e.kind() == RunEvent.Kind.FINISHED) {
                RunStatus st = e.result().map(r -> r.status()).orElse(null);
                if (st == RunStatus.FAILED) {
                    offline.suspect();
                } else if (st == RunStatus.SUCCEEDED) {
                    offline.reachedServer();
                    ui.execute(desktop::online);
                }
                ui.execute(() -> {
                    data.load();
                    history.load();
                });
            }
            attention.accept(e);
        };
        rt.coordinator().addListener(onRunEvent);
        vm.addStatusListener(s -> {
            // a run of another process on this data directory reached the server
            if (s.lastSuccess().isPresent()) {
                Instant before = successSeen.put(s.key(), s.lastSuccess().get());
                if (before != null && s.lastSuccess().get().isAfter(before) && desktop.offline()) {
                    offline.reachedServer();
                    desktop.online();
                }
            }
        });
        this.lifecycle = new WindowLifecycle(stage, vm, desktop, parts.implicitExit(), parts.exit());
        this.tray = new TrayController(parts.tray(), vm, desktop, messages, settings.time());

        String footer = "Syncs start every " + DurationConverter.format(settings.scheduleInterval())
                + " (timer), when you come back to this window (unless synced in the last "
                + DurationConverter.format(settings.foregroundMinInterval()) + "), and when you click Sync now. "
                + "A task never runs twice at once: a trigger that finds it running joins it. "
                + StatusTexts.servers(backend.servers());
        MainView view = new MainView(vm, data, history, this::openQa, footer,
                user -> vm.switchAccountAndSync(user, foregroundDue), desktop, messages, lifecycle::quit);
        Scene scene = new Scene(view.root(), 1180, 780);
        scene.getStylesheets().add(AppAssembly.class.getResource("app.css").toExternalForm());
        stage.setTitle("leasesync");
        stage.setScene(scene);
    }

    private Map<Scope, Integer> pendingCounts() {
        Map<Scope, Integer> m = new EnumMap<>(Scope.class);
        String user = vm.tracker().user();
        if (user != null) {
            for (Scope s : Scope.values()) {
                try {
                    m.put(s, backend.runtime().edits().pendingCount(new TaskKey(user, s)));
                } catch (RuntimeException e) {
                    log.warn("could not count the changes waiting for {}: {}", s, e.getMessage());
                }
            }
        }
        return m;
    }

    /**
     * For a window that was already shown (and focused) before the cards were built: counts as
     * coming to the foreground once, so the start-up sync is not lost. FX thread.
     */
    public void focusedBeforeCards() {
        foreground.onMainFocusGained();
    }

    /** Shows the window, signs in, starts the triggers. FX thread. */
    public void show() {
        show(true);
    }

    /**
     * Signs in and starts the triggers, the offline probe and the notification checks; shows the window
     * unless {@code visible} is false (started in the tray). FX thread.
     */
    public void show(boolean visible) {
        if (visible) {
            stage.show();
        }
        vm.start();
        foreground.install();
        schedule.start();
        tray.watch();
        refresher = backend.runtime().timer().scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(),
                REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        notifyThread.execute(() -> {
            DesktopNotifier n = parts.notifier().apply(key -> ui.execute(() -> lifecycle.openAt(key.scope())));
            notifier = n;
            ui.execute(() -> desktop.notificationsAvailable(n.available()));
        });
        attention.start();
    }

    private void refresh() {
        try {
            vm.tracker().refreshAll();
            desktop.tick();
            Optional<Instant> next = offline.nextTry();
            if (next.isPresent()) {
                Map<Scope, Integer> waiting = pendingCounts();
                ui.execute(() -> {
                    if (desktop.offline()) {
                        desktop.offline(next.get(), waiting);
                    }
                });
            }
        } catch (RuntimeException e) {
            log.warn("status refresh failed: {}", e.getMessage());
        }
    }

    /**
     * Puts the icon into the tray, then (on the FX thread) makes closing the window hide it there —
     * or, without a tray, says that closing quits. Blocks while the tray starts: call it off the FX
     * thread, after {@link #show}.
     *
     * @return whether the tray icon is there
     */
    public boolean installTray() {
        java.util.concurrent.CompletableFuture<TrayPort.TrayView> initial = new java.util.concurrent.CompletableFuture<>();
        ui.execute(() -> initial.complete(tray.view()));
        boolean ok;
        try {
            ok = tray.install(initial.get(10, TimeUnit.SECONDS), ui, lifecycle::open, lifecycle::quit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn("no tray: {}", e.toString());
            ok = false;
        }
        boolean installed = ok;
        ui.execute(() -> {
            lifecycle.trayReady(installed);
            tray.update();
        });
        return installed;
    }

    void openQa() {
        if (qaWindow == null) {
            qaWindow = new QaWindow(qa, stage);
        }
        qa.refresh();
        qaWindow.show();
    }

    public MainViewModel viewModel() {
        return vm;
    }

    public DataViewModel dataViewModel() {
        return data;
    }

    public HistoryViewModel historyViewModel() {
        return history;
    }

    public QaViewModel qaViewModel() {
        return qa;
    }

    public DesktopViewModel desktopViewModel() {
        return desktop;
    }

    ForegroundTrigger foregroundTrigger() {
        return foreground;
    }

    WindowLifecycle lifecycle() {
        return lifecycle;
    }

    TrayController trayController() {
        return tray;
    }

    OfflineMonitor offlineMonitor() {
        return offline;
    }

    /** Stops triggers, timers, probes, notifications and background work, removes the tray icon and closes the QA window. FX thread. */
    @Override
    public void close() {
        schedule.close();
        if (refresher != null) {
            refresher.cancel(false);
        }
        offline.close();
        attention.close();
        backend.runtime().coordinator().removeListener(onRunEvent);
        backend.runtime().coordinator().removeListener(vm.tracker());
        if (qaWindow != null) {
            qaWindow.stage().hide();
        }
        tray.remove();
        lifecycle.dispose();
        notifyThread.shutdownNow();
        probeThread.shutdownNow();
        notifier.close();
        serverProbe.close();
        actionThread.shutdownNow();
    }

    /** A desktop without a tray. */
    enum NoTray implements TrayPort {
        INSTANCE;

        @Override
        public boolean install(TrayMenu menu, TrayView initial) {
            return false;
        }

        @Override
        public void show(TrayView view) {
        }

        @Override
        public void remove() {
        }
    }
}
