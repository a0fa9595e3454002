package org.leasesync.desktop.resident;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.leasesync.client.StopSignals;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.DisplayCheck;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.SingleInstance;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.WindowAccounts;
import org.leasesync.desktop.notify.DbusNotifier;
import org.leasesync.desktop.tray.AwtTray;
import org.leasesync.lease.Scope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts leasesync in the tray without its window: the way the autostart entry starts it, and the
 * process a window hands the tray over to once it has been closed to the tray for a while
 * ({@code desktop.fx.TrayHandover}). A JVM that never loads JavaFX holds a fraction of the window's
 * memory (its classes, GTK, the scene graph, the renderer's buffers; docs/benchmarks.md), and a tray
 * app runs all day. When the user asks for the window, it opens in this same process on the same
 * backend (JavaFX starts then), so what runs is not interrupted.
 */
public final class Resident {

    /** The environment variable that starts the app in the tray without its window, when it is 1. */
    public static final String ENV = "LEASESYNC_RESIDENT";
    /** The account the tray process shows and syncs (the one the window showed); the first one when unset. */
    public static final String ACCOUNT_ENV = "LEASESYNC_RESIDENT_ACCOUNT";

    /** The first wait between probes of an unreachable server (as the window's). */
    static final Duration PROBE_FIRST = Duration.ofSeconds(5);
    /** The longest wait between probes of an unreachable server (as the window's). */
    static final Duration PROBE_MAX = Duration.ofMinutes(1);

    /** When start-up counts as settled (the first syncs and the tray done): the heap is collected then. */
    static final Duration SETTLE_AFTER = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(Resident.class);

    private Resident() {}

    /** Whether this environment asks for the tray process ({@link #ENV} is 1). */
    public static boolean asked(Map<String, String> env) {
        return "1".equals(env.get(ENV));
    }

    /** What the user asked the tray for. */
    private record Exit(boolean quit, Optional<Scope> at, boolean settings) {}

    /**
     * Runs in the tray until Quit, a stop signal, or the user asks for the window; then opens it in
     * this process through {@code window}. Blocks.
     *
     * @param given the options given on the command line (the rest come from {@code settings.json})
     * @param atLogin started by the autostart entry (one sync of what is due)
     * @param window opens the window on a handoff and blocks until it closes, answering the exit code
     * @return the exit code: 0 after Quit or when another process already holds the data directory's window
     * @throws org.leasesync.lease.LeasesyncException when there is no display (as the window)
     */
    public static int launch(
            Backend.AppSettings s, Set<String> given, boolean atLogin, Function<Handoff, Integer> window) {
        DisplayCheck.check(System.getenv(), System.getProperties());
        AwtTray.quietToolkit(); // before any thread of ours or a toolkit's reads the environment
        SingleInstance.Claim claim = SingleInstance.claim(s.dataDir(), SingleInstance.ANSWER_WITHIN);
        if (claim instanceof SingleInstance.Claim.Shown) {
            log.info("leasesync already runs on {}; this start in the tray ends", s.dataDir());
            return 0;
        }
        SingleInstance instance = ((SingleInstance.Claim.First) claim).instance();
        StartOptions options = StartOptions.read(s, given);
        Backend backend;
        try {
            backend = Backend.start(options.settings());
        } catch (RuntimeException e) {
            log.warn("could not start in the tray ({}); opening the window, which says why", e.getMessage());
            return window.apply(
                    handoff(Optional.empty(), instance, options, Optional.empty(), Optional.empty(), false));
        }
        Optional<String> user = chooseUser(backend.accounts(), System.getenv(ACCOUNT_ENV));
        if (user.isEmpty()) {
            log.info("no account to sync in the tray; opening the window to sign in");
            return window.apply(handoff(Optional.of(backend), instance, options, user, Optional.empty(), false));
        }
        Messages messages = new Messages(options.locale(), ZoneId.systemDefault());
        CompletableFuture<Exit> exit = new CompletableFuture<>();
        ResidentAssembly assembly = new ResidentAssembly(
                backend,
                options,
                user.get(),
                messages,
                new TrayDesktop(new AwtTray(messages), DbusNotifier.ofSession(messages), PROBE_FIRST, PROBE_MAX),
                new ResidentAssembly.Exits() {
                    @Override
                    public void open(Optional<Scope> at, boolean settings) {
                        exit.complete(new Exit(false, at, settings));
                    }

                    @Override
                    public void quit() {
                        log.info("quit from the menu");
                        exit.complete(new Exit(true, Optional.empty(), false));
                    }
                });
        AtomicBoolean stopped = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopped.compareAndSet(false, true)) {
                assembly.close();
                backend.close(Duration.ofSeconds(5));
                instance.close();
            }
        };
        StopSignals signals = StopSignals.install(() -> {
            log.info("stopping: the process was told to stop (SIGTERM, Ctrl-C or logout); cancelling runs, "
                    + "releasing leases");
            stop.run();
            log.info("stopped cleanly");
        });
        instance.onShow(() -> exit.complete(new Exit(false, Optional.empty(), false)));
        assembly.start(atLogin);
        org.leasesync.desktop.HeapSettle.after(SETTLE_AFTER, "startup-settle");
        Exit e = exit.join();
        signals.close();
        if (e.quit()) {
            stop.run();
            log.info("stopped");
            return 0;
        }
        assembly.close();
        log.info("opening the window in this process");
        return window.apply(handoff(Optional.of(backend), instance, options, user, e.at(), e.settings()));
    }

    private static Handoff handoff(
            Optional<Backend> b,
            SingleInstance instance,
            StartOptions options,
            Optional<String> user,
            Optional<Scope> at,
            boolean settings) {
        return new Handoff(b, instance, options, user, at, settings);
    }

    /** The account named by {@code wanted} when there is one of that name, else the first; empty when none. */
    static Optional<String> chooseUser(WindowAccounts accounts, String wanted) {
        var entries = accounts.entries();
        if (wanted != null && entries.stream().anyMatch(e -> e.user().equals(wanted))) {
            return Optional.of(wanted);
        }
        return entries.stream().findFirst().map(WindowAccounts.Entry::user);
    }
}
