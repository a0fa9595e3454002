package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.DurationText;
import org.leasesync.client.NamedThreads;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.BackgroundCheck;
import org.leasesync.desktop.FolderOpener;
import org.leasesync.desktop.ForegroundPolicy;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.OfflineMonitor;
import org.leasesync.desktop.PauseControl;
import org.leasesync.desktop.ScheduleTrigger;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunEvent;
import org.leasesync.run.StartCheck;
import org.leasesync.run.TaskSource;

/**
 * The composition root of the window: view models, views, the three triggers and the status
 * refresh, on a given {@link Backend}; and living in the background on the given {@link HostDesktop}
 * — tray, pause, offline, notifications, start at login. Used by {@link App} and by the UI tests.
 *
 * <p>Executors it owns: {@code ui-actions} (coordinator calls and file writes off the FX thread);
 * {@link BackgroundServices} owns {@code server-probe} and {@code notifier}. Timers run on the runtime's {@code sync-timer} scheduler. {@link #close()} stops them; the
 * backend is closed by its owner.
 */
public final class AppAssembly implements AutoCloseable {

    /** How often stored state is re-read (runs of other processes, scheduled retries). */
    static final Duration REFRESH = Duration.ofSeconds(2);
    /** The same while the window is hidden in the tray: only the icon's state can be this late. */
    static final Duration HIDDEN_REFRESH = Duration.ofSeconds(30);

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AppAssembly.class);

    private final Backend backend;
    private final Backend.AppSettings settings;
    private final Stage stage;
    private final Executor ui;
    private final ExecutorService actionThread =
            Executors.newSingleThreadExecutor(new NamedThreads("ui-actions", true));
    /** Background work of the views; silently dropped once the window is closing. */
    private final Executor actions = task -> {
        try {
            actionThread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("window closing; dropped a background task");
        }
    };

    private final java.util.function.Consumer<RunEvent> onRunEvent;
    private final MainViewModel vm;
    private final DataViewModel data;
    private final HistoryViewModel history;
    private final ConflictAssembly conflicts;
    private final QaViewModel qa;
    private final BackgroundViewModel desktop;
    private final ScheduleTrigger schedule;
    private final ForegroundTrigger foreground;
    private final ForegroundPolicy foregroundPolicy;
    private final SettingsFile settingsFile;
    private final TrayController tray;
    private final WindowLifecycle lifecycle;
    private final BackgroundServices services;
    private StatusRefresher refresher;
    /** Stops JavaFX's pulse while no window shows (the window hidden in the tray); empty until shown. */
    private Optional<PulseGate> pulseGate = Optional.empty();

    private QaWindow qaWindow;
    private final StartOptions start;
    /** The background triggers' check on the intervals in force (replaced when the settings change them). */
    private final BackgroundCheck backgroundCheck;

    private final WindowFooter footer;
    private final SettingsWindow settingsWindow;
    private final WindowPlacement placement;
    private final AccountsAssembly accounts;

    /** With no tray, no notifications and no autostart (the UI tests that do not test them). */
    public AppAssembly(Backend backend, Backend.AppSettings settings, Stage stage, Executor ui) {
        this(backend, settings, stage, ui, BareDesktop.of(settings.dataDir()));
    }

    /** @param ui runs on the FX thread ({@code Platform::runLater}) */
    AppAssembly(Backend backend, Backend.AppSettings settings, Stage stage, Executor ui, HostDesktop parts) {
        this(backend, StartOptions.of(settings), stage, ui, parts);
    }

    /**
     * @param start the settings in force and which of them the command line gave (the settings dialog says so)
     * @param ui runs on the FX thread ({@code Platform::runLater})
     */
    AppAssembly(Backend backend, StartOptions start, Stage stage, Executor ui, HostDesktop parts) {
        Backend.AppSettings settings = start.settings();
        this.start = start;
        this.backend = backend;
        this.settings = settings;
        this.stage = stage;
        this.ui = ui;
        ClientRuntime rt = backend.runtime();
        Messages messages = parts.messages();
        StatusTexts texts = new StatusTexts(messages);
        this.settingsFile = new SettingsFile(settings.dataDir(), settings.time());
        SettingsFile.Loaded loaded = settingsFile.load();
        BackgroundViewModel[] desktopRef = new BackgroundViewModel[1];
        PauseControl pause = new PauseControl(
                settingsFile,
                settings.time(),
                messages.zone(),
                actions,
                reason -> ui.execute(() -> desktopRef[0].notice(messages.get("banner.settingsNotSaved", reason))));
        // automatic triggers go through the pause gate (the user's own reason, shown on the cards) and then the
        // signed-out gate (no timer or window sync for an account the server no longer accepts)
        this.vm = new MainViewModel(
                rt.coordinator(),
                actions,
                ui,
                texts,
                backend.accounts().entries().stream()
                        .map(org.leasesync.desktop.WindowAccounts.Entry::user)
                        .toList(),
                sink -> new StatusTracker(
                        rt.store().runs(),
                        rt.coordinator(),
                        ui,
                        sink,
                        rt.registry().owner().asString(),
                        rt::originOf),
                pause.and(backend.accounts().gate()),
                settings.time());
        vm.setAccountPreparer(backend.accounts()::prepare);
        this.desktop = new BackgroundViewModel(
                vm, settingsFile, pause, parts.autostart(), actions, ui, settings.time(), texts);
        desktopRef[0] = desktop;
        backend.legacyServer()
                .ifPresent(r -> desktop.notice(messages.get(
                        "banner.legacyServer." + r.outcome().name(),
                        r.name(),
                        r.keptIn().orElse(""),
                        r.reason().orElse(""))));
        loaded.problem()
                .ifPresent(p -> desktop.notice(messages.get("banner.settingsUnreadable", p.reason(), p.keptAs())));
        this.data = new DataViewModel(rt.edits(), vm, actions, ui, texts);
        this.conflicts = new ConflictAssembly(
                rt.store().database(),
                rt.edits(),
                settings.time(),
                vm,
                data,
                actions,
                ui,
                texts,
                rt.timer(),
                () -> stage);
        this.history = new HistoryViewModel(
                rt.store().runs(),
                new org.leasesync.store.JdbcRecentSyncs(rt.store().database()),
                vm,
                actions,
                ui,
                texts);
        this.qa = new QaViewModel(
                rt.coordinator(), rt.registry(), backend.embeddedServer(), vm, actions, ui, settings.time(), messages);
        this.backgroundCheck =
                new BackgroundCheck(rt.recentSyncs(), settings.scheduleInterval(), settings.foregroundMinInterval());
        rt.coordinator().setStartCheck(backgroundCheck);
        this.schedule = new ScheduleTrigger(
                rt.timer(),
                settings.scheduleInterval(),
                () -> ui.execute(() -> vm.backgroundTrigger(TaskSource.SCHEDULE, key -> {
                    boolean due = backgroundCheck.due(key, TaskSource.SCHEDULE);
                    if (!due) {
                        ui.execute(history::load); // the skip is in the history now
                    }
                    return due;
                })));
        this.foregroundPolicy = new ForegroundPolicy(Duration.ofSeconds(2), settings.foregroundMinInterval());
        java.util.function.Predicate<TaskKey> foregroundDue = key -> backgroundCheck.due(key, TaskSource.FOREGROUND);
        this.foreground = new ForegroundTrigger(
                stage,
                foregroundPolicy,
                settings.time(),
                () -> vm.backgroundTrigger(TaskSource.FOREGROUND, foregroundDue));

        this.lifecycle =
                new WindowLifecycle(stage, vm, desktop, parts.implicitExit(), parts.exit(), parts.tray()::iconShown);
        this.accounts = new AccountsAssembly(
                backend.accounts(), vm, ui, messages, settings.time(), foregroundDue, () -> stage, lifecycle::open);
        this.services = new BackgroundServices(
                backend,
                settings,
                parts,
                vm,
                desktop,
                () -> settingsFile.current().notifications(),
                ui,
                lifecycle::openAt);
        this.onRunEvent = new RunEventReloads(services, data, history, ui);
        rt.coordinator().addListener(onRunEvent);
        this.tray = new TrayController(parts.tray(), vm, desktop, messages, settings.time());

        this.footer = new WindowFooter(
                texts,
                backend.accounts(),
                backend::servers,
                vm,
                settings.scheduleInterval(),
                settings.foregroundMinInterval());
        this.settingsWindow = new SettingsWindow(
                new SettingsViewModel(settingsFile, desktop, start, messages, this::applyIntervals),
                accounts,
                stage,
                messages);
        MainView view = new MainView(
                vm,
                data,
                history,
                this::openQa,
                footer.text(),
                accounts.accounts(),
                accounts::openNew,
                accounts::openAgain,
                desktop,
                messages,
                this::openSettings,
                lifecycle::quit,
                new FolderActions(settings.dataDir(), FolderOpener.DESKTOP, actions, ui, messages, () -> stage));
        Scene scene = new Scene(view.root(), 1180, 780); // the stage's own size is WindowPlacement's
        AppStyle.apply(scene, messages.locale());
        stage.setTitle("leasesync");
        stage.setScene(scene);
        this.placement = new WindowPlacement(stage, settingsFile);
        placement.restore();
    }

    /**
     * New intervals from the settings dialog, for the running window: the timer is re-armed, and the
     * background triggers judge "synced moments ago" by the new values. FX thread.
     */
    private void applyIntervals(Duration scheduleInterval, Duration foregroundMinInterval) {
        backgroundCheck.setIntervals(scheduleInterval, foregroundMinInterval);
        schedule.setInterval(scheduleInterval);
        footer.show(scheduleInterval, foregroundMinInterval);
        log.info(
                "intervals changed in the settings: schedule {}, foreground minimum {}",
                DurationText.format(scheduleInterval),
                DurationText.format(foregroundMinInterval));
    }

    /** Opens the settings dialog (the window's menu and the tray's). FX thread. */
    void openSettings() {
        settingsWindow.open(lifecycle::open);
    }

    boolean settingsDialogShowing() {
        return settingsWindow.showing();
    }

    AccountsAssembly accounts() {
        return accounts;
    }

    SettingsFile settingsFile() {
        return settingsFile;
    }

    SettingsViewModel settingsViewModel() {
        return settingsWindow.model();
    }

    /** The timer's interval in force. */
    Duration scheduleInterval() {
        return schedule.interval();
    }

    /** The background triggers' check in force. */
    StartCheck backgroundCheck() {
        return backgroundCheck.inForce();
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
        refresher = new StatusRefresher(
                backend.runtime().timer(), stage.showingProperty(), REFRESH, HIDDEN_REFRESH, this::refresh);
        refresher.start();
        services.start();
        pulseGate = PulseGate.installOnToolkit();
    }

    private void refresh() {
        try {
            vm.tracker().refreshAll();
            desktop.tick();
            services.refresh();
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
        return tray.installFromBackground(ui, lifecycle, this::openSettings);
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

    /** The conflict view and its window (tests). */
    ConflictAssembly conflicts() {
        return conflicts;
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

    public BackgroundViewModel desktopViewModel() {
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
        return services.offlineMonitor();
    }

    /**
     * Stops triggers, timers, probes, notifications and background work, removes the tray icon, closes
     * the QA window, saves the window's size and position and hides it. FX thread.
     */
    @Override
    public void close() {
        pulseGate.ifPresent(PulseGate::close);
        schedule.close();
        if (refresher != null) {
            refresher.close();
        }
        services.close();
        backend.runtime().coordinator().removeListener(onRunEvent);
        backend.runtime().coordinator().setStartCheck(StartCheck.NONE);
        backend.runtime().coordinator().removeListener(vm.tracker());
        if (qaWindow != null) {
            qaWindow.stage().hide();
        }
        settingsWindow.hide();
        accounts.close();
        conflicts.close();
        if (stage.isShowing()) {
            placement.save();
            // nothing may paint once the app stops (a running card's progress bar animates): on SIGTERM the
            // JVM's shutdown then ends the renderer, which would refuse a frame with a stack trace on stderr
            stage.hide();
        }
        tray.remove();
        lifecycle.dispose();
        actionThread.shutdownNow();
    }
}
