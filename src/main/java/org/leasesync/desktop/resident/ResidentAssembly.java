package org.leasesync.desktop.resident;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.NamedThreads;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.BackgroundCheck;
import org.leasesync.desktop.CardOverlay;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.OfflineMonitor;
import org.leasesync.desktop.PauseControl;
import org.leasesync.desktop.ScheduleTrigger;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.desktop.TriggerGate;
import org.leasesync.desktop.notify.AttentionWatcher;
import org.leasesync.desktop.notify.NotificationPolicy;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.desktop.tray.TrayViews;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.ServerProbe;
import org.leasesync.run.RunEvent;
import org.leasesync.run.StartCheck;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.ConflictCopies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * leasesync living in the tray without its window, and without JavaFX: the tray icon and its menu,
 * the schedule trigger (through the pause and signed-out gates and the "synced moments ago" check,
 * as the window's), the icon's state from the signed-in account's keys under the same overlays as
 * the cards (pause, offline, conflicts, signed out; {@link CardOverlay}), the offline probe, and
 * the desktop notifications. Retries are the coordinator's own. What needs a window — Open,
 * Settings…, a click on a notification, no tray on this desktop — goes to {@link Exits}, which
 * opens the window in this process on the same backend.
 *
 * <p>Threads: state changes run on one daemon thread {@code resident} (the tracker's snapshots, the
 * overlays, the icon); database work on {@code resident-io}; probes on {@code server-probe};
 * notifications on {@code notifier}; the timer and the refresh on the runtime's {@code sync-timer}.
 * {@link #close()} stops them all and takes the icon out of the tray; the backend is its owner's.
 */
public final class ResidentAssembly implements AutoCloseable {

    /**
     * How often stored state is re-read for what this process does not hear of itself: runs of other
     * processes (the CLI), conflicts, the end of a pause. Its own runs update the icon as they happen.
     * Once a minute, as the tooltip's "synced … ago" counts minutes: each look is a few queries on
     * three threads, which at twice a minute were a tenth of the tray's idle CPU (docs/benchmarks.md).
     */
    static final Duration REFRESH = Duration.ofSeconds(60);
    /** The longest the notification check of a look may take. */
    static final Duration LOOK_WAIT = Duration.ofSeconds(3);
    /** The most one offline probe may take per server URL. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    private static final Logger log = LoggerFactory.getLogger(ResidentAssembly.class);

    /** What takes the app out of the tray. Called on the tray's, the notifier's or the instance socket's thread. */
    public interface Exits {
        /**
         * The user asked for the window: plain ({@code at} empty, {@code settings} false), at a card (a
         * notification was clicked), or with the settings dialog; or this desktop has no tray.
         */
        void open(Optional<Scope> at, boolean settings);

        /** Quit from the tray menu. */
        void quit();
    }

    private final Backend backend;
    private final ClientRuntime rt;
    private final Messages messages;
    private final TrayDesktop parts;
    private final Exits exits;
    private final String user;
    private final TimeSource time;
    private final ExecutorService loopThread = Executors.newSingleThreadExecutor(new NamedThreads("resident", true));
    private final ExecutorService ioThread = Executors.newSingleThreadExecutor(new NamedThreads("resident-io", true));
    /** State changes; dropped once closed. */
    private final java.util.concurrent.Executor loop = task -> runUnlessClosed(loopThread, task);
    /** Database work; dropped once closed. */
    private final java.util.concurrent.Executor io = task -> runUnlessClosed(ioThread, task);

    private final ScheduledExecutorService probeThread =
            Executors.newSingleThreadScheduledExecutor(new NamedThreads("server-probe", true));
    private final ScheduledExecutorService notifyThread =
            Executors.newSingleThreadScheduledExecutor(new NamedThreads("notifier", true));
    private final SettingsFile settingsFile;
    private final PauseControl pause;
    private final TriggerGate gate;
    private final BackgroundCheck check;
    private final StatusTracker tracker;
    private final ScheduleTrigger schedule;
    private final OfflineMonitor offline;
    private final ConflictCopies copies;
    private final Consumer<RunEvent> onRunEvent = this::runEvent;
    /** The last snapshot of each scope of {@link #user} (the {@code resident} thread). */
    private final Map<Scope, KeyStatus> statuses = new EnumMap<>(Scope.class);
    /** The overlays over the stored state (the {@code resident} thread). */
    private CardOverlay overlay;

    private volatile ServerProbe probe;
    private volatile AttentionWatcher attention;
    private volatile Notifier notifier = Notifier.NONE;
    private volatile boolean installed;
    private volatile boolean closed;
    private ScheduledFuture<?> refresh;
    /** Whether a key of {@link #user} showed as running at its last snapshot (of any process). */
    private volatile boolean anyRunning;
    /** Whether the database file changed since it was last read all ({@code resident-io} only). */
    private final IdleDatabase idleDb;

    /**
     * @param start the settings in force (intervals, time source, data directory)
     * @param user the account whose keys the timer syncs and the icon shows
     * @param messages the texts in the app's language
     */
    public ResidentAssembly(
            Backend backend, StartOptions start, String user, Messages messages, TrayDesktop parts, Exits exits) {
        this.backend = Objects.requireNonNull(backend);
        this.rt = backend.runtime();
        this.messages = Objects.requireNonNull(messages);
        this.parts = Objects.requireNonNull(parts);
        this.exits = Objects.requireNonNull(exits);
        this.user = Objects.requireNonNull(user);
        Backend.AppSettings s = start.settings();
        this.time = s.time();
        this.settingsFile = new SettingsFile(s.dataDir(), s.time());
        settingsFile.load();
        this.pause = new PauseControl(
                settingsFile, s.time(), messages.zone(), io, reason -> log.warn("the pause was not saved: {}", reason));
        this.gate = pause.and(backend.accounts().gate());
        this.check = new BackgroundCheck(rt.recentSyncs(), s.scheduleInterval(), s.foregroundMinInterval());
        this.tracker = new StatusTracker(
                rt.store().runs(),
                rt.coordinator(),
                loop,
                this::shown,
                rt.registry().owner().asString(),
                rt::originOf);
        this.schedule = new ScheduleTrigger(rt.timer(), s.scheduleInterval(), () -> gated(TaskSource.SCHEDULE));
        // a run going on here (whose events it hears) or elsewhere (whose lease may expire without a write)
        this.idleDb = new IdleDatabase(
                rt.store().database(),
                s.time(),
                () -> anyRunning
                        || java.util.Arrays.stream(Scope.values())
                                .anyMatch(sc -> rt.coordinator().isRunningLocally(new TaskKey(user, sc))));
        this.copies = new ConflictCopies(rt.store().database(), s.time());
        this.overlay = CardOverlay.none(s.time().now())
                .withPause(pause.active(), s.time().now());
        this.offline = new OfflineMonitor(
                this::probe,
                probeThread,
                s.time(),
                parts.probeFirst(),
                parts.probeMax(),
                OfflineMonitor.Listener.of(
                        next -> loop.execute(() -> setOverlay(overlay.withOffline(next, Map.of(), now())))));
    }

    /**
     * Puts the icon into the tray and starts the timer, the refresh, the probe and the notifications.
     * Blocks while the tray starts (a few seconds at most); without a tray on this desktop it asks
     * {@link Exits#open} for the window instead, since nothing could bring the app back.
     *
     * @param atLogin started by the autostart entry: one sync of what is due, as the window counts its
     *     start in the tray as coming to the foreground
     */
    public void start(boolean atLogin) {
        rt.coordinator().setStartCheck(check);
        rt.coordinator().addListener(tracker);
        rt.coordinator().addListener(onRunEvent);
        pause.addListener(() -> loop.execute(() -> setOverlay(overlay.withPause(pause.active(), now()))));
        backend.accounts().gate().addListener(() -> loop.execute(this::signedOutChanged));
        io.execute(() -> {
            backend.accounts().prepare(user).ifPresent(p -> log.warn("{} cannot sync: {}", user, p));
            tracker.setUser(user);
            refreshConflicts();
            if (atLogin) {
                gated(TaskSource.FOREGROUND);
            }
        });
        loop.execute(this::signedOutChanged);
        TrayPort.TrayMenu menu = new TrayPort.TrayMenu(
                () -> exits.open(Optional.empty(), false),
                this::syncAll,
                option -> pause.pause(option),
                pause::resume,
                () -> exits.open(Optional.empty(), true),
                exits::quit);
        installed = parts.tray().install(menu, view());
        if (!installed) {
            log.info("no system tray on this desktop; opening the window");
            exits.open(Optional.empty(), false);
            return;
        }
        log.info("leasesync runs in the tray without its window (no JavaFX loaded) for {}", user);
        schedule.start();
        refresh = rt.timer()
                .scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        notifyThread.execute(this::startNotifications);
    }

    /** Whether the icon is in the tray (false before {@link #start} put it there, or when there is no tray). */
    public boolean iconShown() {
        return installed && parts.tray().iconShown();
    }

    private void startNotifications() {
        Notifier n = parts.notifier().apply(key -> exits.open(Optional.of(key.scope()), false));
        notifier = n;
        AttentionWatcher w = new AttentionWatcher(
                rt.store().runs(),
                rt.edits(),
                () -> user,
                new NotificationPolicy(messages),
                () -> offline.nextTry().isPresent(),
                () -> settingsFile.current().notifications(),
                n,
                notifyThread,
                REFRESH);
        if (!closed) {
            // no periodic look of its own: the refresh has it look when the database may have changed
            attention = w;
            io.execute(() -> readStored(true));
        }
    }

    /** A timer or login trigger for every scope, through the gates and the "synced moments ago" check. */
    private void gated(TaskSource source) {
        io.execute(() -> {
            boolean unchanged = idleDb.unchanged();
            for (Scope s : Scope.values()) {
                TaskKey key = new TaskKey(user, s);
                Optional<String> refused = gate.refusal(key, source);
                if (refused.isPresent()) {
                    log.info("{} trigger for {} skipped: {}", source.wireName(), key, refused.get());
                } else if (check.due(key, source)) {
                    submit(new TriggerRequest(key, source, false, false));
                }
            }
            // only read here: the file as it closes now is still the one last read all, if it was before
            idleDb.letClose(unchanged);
        });
    }

    /** Sync all from the tray menu: the user's own trigger, not gated (as the window's). */
    private void syncAll() {
        io.execute(() -> {
            for (Scope s : Scope.values()) {
                submit(new TriggerRequest(new TaskKey(user, s), TaskSource.MANUAL, false, false));
            }
        });
    }

    private void submit(TriggerRequest request) {
        if (closed) {
            return; // the window's triggers decide from now on
        }
        try {
            rt.coordinator().submit(request);
        } catch (RuntimeException e) {
            log.warn("could not submit {} trigger for {}: {}", request.source(), request.key(), e.toString());
        }
    }

    /** A run event (a coordinator thread): failures make the server suspect, a success clears it. */
    private void runEvent(RunEvent e) {
        offline.runEnded(e);
        if (e.kind() == RunEvent.Kind.FINISHED) {
            io.execute(() -> {
                refreshConflicts();
                idleDb.written(); // the next refresh reads it all, then lets it close
            });
        }
        AttentionWatcher w = attention;
        if (w != null) {
            w.accept(e);
        }
    }

    /** A snapshot of a key ({@code resident} thread). */
    private void shown(KeyStatus s) {
        if (s.key().userId().equals(user)) {
            statuses.put(s.key().scope(), s);
            anyRunning = statuses.values().stream().anyMatch(k -> k.kind() == KeyStatus.Kind.RUNNING);
            showInTray();
        }
    }

    private void signedOutChanged() {
        setOverlay(overlay.withAccountSignedOut(backend.accounts().gate().isSignedOut(user)));
    }

    private void setOverlay(CardOverlay o) {
        overlay = o;
        showInTray();
    }

    private void showInTray() {
        if (installed && !closed) {
            parts.tray().show(view());
        }
    }

    /** What the tray shows now: as the window's tray ({@link TrayViews}). */
    private TrayPort.TrayView view() {
        List<KeyStatus.Kind> shown = new java.util.ArrayList<>();
        Optional<Instant> last = Optional.empty();
        int conflicts = 0;
        for (Scope s : Scope.values()) {
            KeyStatus st = statuses.get(s);
            shown.add(st == null ? overlay.shown(KeyStatus.Kind.NEVER_SYNCED) : overlay.shown(st));
            if (st != null
                    && st.lastSuccess().isPresent()
                    && (last.isEmpty() || st.lastSuccess().get().isAfter(last.get()))) {
                last = st.lastSuccess();
            }
            conflicts += overlay.conflicts(s);
        }
        return TrayViews.of(shown, last, conflicts, pause.active().isPresent(), messages, now());
    }

    /**
     * The periodic look (timer thread): the pause's end, the tooltip's "synced … ago", and what other
     * processes changed in the database ({@link #readStored}).
     */
    private void refresh() {
        try {
            pause.tick();
            loop.execute(this::showInTray);
            io.execute(() -> readStored(false));
        } catch (RuntimeException e) {
            log.warn("status refresh failed: {}", e.getMessage());
        }
    }

    /**
     * Re-reads what the icon and the notifications show of the database — other processes' runs, the
     * conflicts — then lets the file close ({@code resident-io}). Unless {@code force}, nothing is read
     * while the file is provably as this process left it ({@link #unchanged()}): opening it would
     * start H2's lock-file watchdog, which wakes every second while it is open.
     */
    private void readStored(boolean force) {
        if (closed || !force && idleDb.unchanged()) {
            return;
        }
        tracker.refreshAll();
        refreshConflicts();
        AttentionWatcher w = attention;
        if (w != null) {
            w.lookAllAndWait(LOOK_WAIT);
        }
        idleDb.readAll();
        idleDb.letClose(true);
    }

    private void refreshConflicts() {
        if (closed) {
            return;
        }
        try {
            Map<Scope, Integer> counts = copies.conflictCounts(user);
            loop.execute(() -> setOverlay(overlay.withConflicts(counts)));
        } catch (RuntimeException e) {
            log.warn("could not count the conflicts of {}: {}", user, e.getMessage());
        }
    }

    private ServerProbe.Result probe() {
        ServerProbe p = probe;
        if (p == null) {
            p = new ServerProbe(rt.serversOf(user), PROBE_TIMEOUT, rt.transportOf(user));
            probe = p;
        }
        return p.probe();
    }

    private void runUnlessClosed(ExecutorService thread, Runnable task) {
        if (closed) {
            return;
        }
        try {
            thread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("tray process closing; dropped a task");
        }
    }

    private Instant now() {
        return time.now();
    }

    /**
     * Stops the timer, the refresh, the probe and the notifications, gives the coordinator back its
     * listeners and check, and takes the icon out of the tray. Idempotent; blocks at most a moment.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        schedule.close();
        if (refresh != null) {
            refresh.cancel(false);
        }
        rt.coordinator().removeListener(onRunEvent);
        rt.coordinator().removeListener(tracker);
        rt.coordinator().setStartCheck(StartCheck.NONE);
        offline.close();
        AttentionWatcher w = attention;
        if (w != null) {
            w.close();
        }
        notifyThread.shutdownNow();
        probeThread.shutdownNow();
        notifier.close();
        ServerProbe p = probe;
        if (p != null) {
            p.close();
        }
        parts.tray().remove();
        installed = false;
        // never interrupt: a database thread interrupted in a write makes H2 close the file, and the
        // window goes on with this backend; what is queued still runs and finds the assembly closed
        loopThread.shutdown();
        ioThread.shutdown();
    }
}
