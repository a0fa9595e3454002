package org.leasesync.app;

import java.time.Duration;
import java.time.ZoneId;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.DurationText;
import org.leasesync.registry.StartCheck;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskSource;
import org.leasesync.registry.TriggerRequest;

/**
 * The composition root of the window: view models, views, the three triggers and the status
 * refresh, on a given {@link Backend}. Used by {@link App} and by the UI tests.
 *
 * <p>Executors it owns: {@code ui-actions} (coordinator calls off the FX thread). Timers run on the
 * runtime's {@code sync-timer} scheduler. {@link #close()} stops them; the backend is closed by its owner.
 */
public final class AppAssembly implements AutoCloseable {

    /** How often stored state is re-read (runs of other processes, scheduled retries). */
    static final Duration REFRESH = Duration.ofSeconds(2);

    private final Backend backend;
    private final Stage stage;
    private final ExecutorService actionThread = Executors.newSingleThreadExecutor(
            new org.leasesync.client.NamedThreads("ui-actions", true));
    /** Background work of the views; silently dropped once the window is closing. */
    private final Executor actions = task -> {
        try {
            actionThread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            org.slf4j.LoggerFactory.getLogger(AppAssembly.class).debug("window closing; dropped a background task");
        }
    };
    private final java.util.function.Consumer<org.leasesync.registry.RunEvent> reloadOnFinish;
    private final MainViewModel vm;
    private final DataViewModel data;
    private final HistoryViewModel history;
    private final QaViewModel qa;
    private final ScheduleTrigger schedule;
    private final ForegroundTrigger foreground;
    private final ForegroundPolicy foregroundPolicy;
    private ScheduledFuture<?> refresher;
    private QaWindow qaWindow;

    /** @param ui runs on the FX thread ({@code Platform::runLater}) */
    public AppAssembly(Backend backend, Backend.AppSettings settings, Stage stage, Executor ui) {
        this.backend = backend;
        this.stage = stage;
        ClientRuntime rt = backend.runtime();
        ZoneId zone = ZoneId.systemDefault();
        this.vm = new MainViewModel(rt.coordinator(), actions, ui, zone, backend.accounts(),
                sink -> new StatusTracker(rt.store().runs(), rt.coordinator(), ui, sink,
                        rt.registry().owner().asString(), rt.config().origin()));
        this.data = new DataViewModel(rt.edits(), vm, actions, ui, zone);
        this.history = new HistoryViewModel(rt.store().runs(), new org.leasesync.store.JdbcRecentSyncs(
                rt.store().database()), vm, actions, ui, zone);
        this.qa = new QaViewModel(rt.coordinator(), rt.registry(), backend.embeddedServer(), vm, actions, ui,
                settings.time());
        // The background triggers ask whether the key synced moments ago, in this window or another
        // one on the data directory (RecentSyncGate): the coordinator with the lease granted, so two
        // windows cannot both sync; the triggers beforehand, so an unnecessary one takes no lease.
        StartCheck background = rt.recentSyncs().backgroundTriggers(settings.scheduleInterval(),
                settings.foregroundMinInterval());
        rt.coordinator().setStartCheck(background);
        this.schedule = new ScheduleTrigger(rt.timer(), settings.scheduleInterval(),
                () -> ui.execute(() -> vm.backgroundTrigger(TaskSource.SCHEDULE, key -> {
                    boolean due = background.skipReason(TriggerRequest.of(key, TaskSource.SCHEDULE)).isEmpty();
                    if (!due) {
                        ui.execute(history::load);   // the skip is in the history now
                    }
                    return due;
                })));
        this.foregroundPolicy = new ForegroundPolicy(Duration.ofSeconds(2), settings.foregroundMinInterval());
        java.util.function.Predicate<TaskKey> foregroundDue =
                key -> background.skipReason(TriggerRequest.of(key, TaskSource.FOREGROUND)).isEmpty();
        this.foreground = new ForegroundTrigger(stage, foregroundPolicy, settings.time(),
                () -> vm.backgroundTrigger(TaskSource.FOREGROUND, foregroundDue));
        this.reloadOnFinish = e -> {
            if (e.kind() == org.leasesync.registry.RunEvent.Kind.FINISHED) {
                ui.execute(() -> {
                    data.load();
                    history.load();
                });
            } else if (e.kind() == org.leasesync.registry.RunEvent.Kind.SKIPPED) {
                ui.execute(history::load);   // e.g. a timer tick found unnecessary with the lease granted
            }
        };
        rt.coordinator().addListener(reloadOnFinish);
        String footer = "Syncs start every " + DurationText.format(settings.scheduleInterval())
                + " (timer; skipped when synced in the last " + DurationText.format(Duration.ofNanos(
                        (long) (settings.scheduleInterval().toNanos() * org.leasesync.sync.RecentSyncGate.SCHEDULE_SHARE)))
                + ", also by another window), when you come back to this window (unless synced in the last "
                + DurationText.format(settings.foregroundMinInterval()) + "), and when you click Sync now. "
                + "A task never runs twice at once: a trigger that finds it running joins it. "
                + StatusTexts.servers(backend.servers());
        MainView view = new MainView(vm, data, history, this::openQa, footer,
                user -> vm.switchAccountAndSync(user, foregroundDue));
        Scene scene = new Scene(view.root(), 1180, 780);
        scene.getStylesheets().add(AppAssembly.class.getResource("app.css").toExternalForm());
        stage.setTitle("leasesync");
        stage.setScene(scene);
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
        stage.show();
        vm.start();
        foreground.install();
        schedule.start();
        refresher = backend.runtime().timer().scheduleWithFixedDelay(() -> {
            try {
                vm.tracker().refreshAll();
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(AppAssembly.class).warn("status refresh failed: {}", e.getMessage());
            }
        }, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
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

    ForegroundTrigger foregroundTrigger() {
        return foreground;
    }

    /** Stops triggers, timers and background work and closes the QA window. FX thread. */
    @Override
    public void close() {
        schedule.close();
        if (refresher != null) {
            refresher.cancel(false);
        }
        backend.runtime().coordinator().removeListener(reloadOnFinish);
        backend.runtime().coordinator().setStartCheck(StartCheck.NONE);
        backend.runtime().coordinator().removeListener(vm.tracker());
        if (qaWindow != null) {
            qaWindow.stage().hide();
        }
        actionThread.shutdownNow();
    }
}
