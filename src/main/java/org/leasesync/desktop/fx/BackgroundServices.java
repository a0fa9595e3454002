package org.leasesync.desktop.fx;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.leasesync.client.NamedThreads;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.OfflineMonitor;
import org.leasesync.desktop.notify.AttentionWatcher;
import org.leasesync.desktop.notify.NotificationPolicy;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.ServerProbe;
import org.leasesync.run.RunEvent;

/**
 * What keeps watching while the window may be closed: the offline state ({@link OfflineMonitor}
 * with a {@link ServerProbe}) and desktop notifications ({@link AttentionWatcher} through the
 * desktop's {@link Notifier}). Fed with the coordinator's run events and the cards' status
 * snapshots; reports to {@link BackgroundViewModel} on the FX thread.
 *
 * <p>Owns two named single-thread executors, {@code server-probe} and {@code notifier};
 * {@link #close()} stops them and closes the probe's HTTP client and the notifier.
 */
final class BackgroundServices implements Consumer<RunEvent>, AutoCloseable {

    /** How often the notification check looks at the database besides after each run. */
    static final Duration NOTIFY_RECHECK = Duration.ofSeconds(10);
    /** The most one offline probe may take per server URL. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BackgroundServices.class);

    private final Backend backend;
    private final MainViewModel vm;
    private final BackgroundViewModel desktop;
    private final HostDesktop parts;
    private final Executor ui;
    private final Consumer<Scope> openAt;
    private final ScheduledExecutorService probeThread =
            Executors.newSingleThreadScheduledExecutor(new NamedThreads("server-probe", true));
    private final ScheduledExecutorService notifyThread =
            Executors.newSingleThreadScheduledExecutor(new NamedThreads("notifier", true));
    /** One probe per server the accounts shown use, made when first needed (each has its own HTTP client). */
    private final Map<String, ServerProbe> probes = new ConcurrentHashMap<>();

    private final OfflineMonitor offline;
    private final AttentionWatcher attention;
    private final Map<TaskKey, Instant> successSeen = new ConcurrentHashMap<>();
    private volatile Notifier notifier = Notifier.NONE;

    /**
     * @param notificationsOn whether the user has notifications switched on (read on every notification)
     * @param openAt opens the window at a card (a notification was clicked); FX thread
     */
    BackgroundServices(
            Backend backend,
            Backend.AppSettings settings,
            HostDesktop parts,
            MainViewModel vm,
            BackgroundViewModel desktop,
            java.util.function.BooleanSupplier notificationsOn,
            Executor ui,
            Consumer<Scope> openAt) {
        this.backend = backend;
        this.vm = vm;
        this.desktop = desktop;
        this.parts = parts;
        this.ui = ui;
        this.openAt = openAt;
        this.offline = new OfflineMonitor(
                this::probe,
                probeThread,
                settings.time(),
                parts.probeFirst(),
                parts.probeMax(),
                new OfflineMonitor.Listener() {
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
        Notifier current = new Notifier() {
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
            public void withdraw(long id) {
                notifier.withdraw(id);
            }

            @Override
            public void close() {
                // the real one is closed by BackgroundServices
            }
        };
        this.attention = new AttentionWatcher(
                backend.runtime().store().runs(),
                backend.runtime().edits(),
                () -> vm.tracker().user(),
                new NotificationPolicy(parts.messages()),
                () -> offline.nextTry().isPresent(),
                notificationsOn,
                current,
                notifyThread,
                NOTIFY_RECHECK);
        vm.addStatusListener(this::shown);
        // offline is about the shown account's server: another account's may well answer
        vm.currentUserProperty().addListener((o, a, b) -> {
            offline.reachedServer();
            desktop.online();
        });
    }

    /** Probes the servers of the account shown (the probe thread). */
    private ServerProbe.Result probe() {
        String user = vm.tracker().user();
        var rt = backend.runtime();
        var servers = user == null ? backend.servers() : rt.serversOf(user);
        var transport = user == null ? backend.transport() : rt.transportOf(user);
        ServerProbe p = probes.computeIfAbsent(
                servers + " " + transport, k -> new ServerProbe(servers, PROBE_TIMEOUT, transport));
        return p.probe();
    }

    /** Connects the notifier (on its own thread) and starts the periodic notification check. */
    void start() {
        notifyThread.execute(() -> {
            Notifier n = parts.notifier().apply(key -> ui.execute(() -> openAt.accept(key.scope())));
            notifier = n;
            ui.execute(() -> desktop.notificationsAvailable(n.available()));
        });
        attention.start();
    }

    /** A run event of the coordinator (any thread): a failure makes the server suspect, a success clears it. */
    @Override
    public void accept(RunEvent e) {
        if (offline.runEnded(e)) {
            ui.execute(desktop::online);
        }
        attention.accept(e);
    }

    /** A snapshot a card shows (FX thread): a newer success, e.g. of another process, means the server answers. */
    private void shown(KeyStatus s) {
        if (s.lastSuccess().isPresent()) {
            Instant before = successSeen.put(s.key(), s.lastSuccess().get());
            if (before != null && s.lastSuccess().get().isAfter(before) && desktop.offline()) {
                offline.reachedServer();
                desktop.online();
            }
        }
    }

    /** Keeps the changes waiting up to date while offline. Called by the status refresh (timer thread). */
    void refresh() {
        Optional<Instant> next = offline.nextTry();
        if (next.isPresent()) {
            Map<Scope, Integer> waiting = pendingCounts();
            ui.execute(() -> {
                if (desktop.offline()) {
                    desktop.offline(next.get(), waiting);
                }
            });
        }
    }

    OfflineMonitor offlineMonitor() {
        return offline;
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

    @Override
    public void close() {
        offline.close();
        attention.close();
        notifyThread.shutdownNow();
        probeThread.shutdownNow();
        notifier.close();
        probes.values().forEach(ServerProbe::close);
    }
}
