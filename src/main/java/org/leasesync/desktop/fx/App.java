package org.leasesync.desktop.fx;

import atlantafx.base.theme.PrimerLight;
import java.time.Duration;
import javafx.animation.AnimationTimer;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.image.Image;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.leasesync.client.StopSignals;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.DisplayCheck;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.SingleInstance;
import org.leasesync.desktop.StartOptions;
import org.leasesync.lease.LeasesyncException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JavaFX application. Started through {@link #launch(Backend.AppSettings)} from the plain
 * {@code Launcher} main class (so JavaFX on the class path works).
 *
 * <p>Start-up shows the window at once with a "Starting…" pane and opens the backend (local
 * database, embedded server, HTTP client) on a background thread named {@code app-start}; the
 * cards replace the pane when it is ready. With the environment variable
 * {@code LEASESYNC_STARTUP_PROBE=1} the app prints {@code startup first_frame_ms=… ready_ms=…
 * rss_kb=…} (milliseconds since the JVM started) once the cards are on screen, and exits: the
 * start-up benchmark and the AppCDS training run use it.
 */
public final class App extends Application {

    private static final Logger log = LoggerFactory.getLogger(App.class);
    private static volatile Backend.AppSettings settings;
    private static volatile StartOptions options;
    private static volatile int exitCode;
    /** This launch's hold on the data directory's one window; another launch asks it to show the window. */
    private static volatile SingleInstance instance;

    /** What the tray process handed over when it opened the window in its own JVM; null for a plain start. */
    private static volatile org.leasesync.desktop.resident.Handoff handoff;
    /** The window asked to hand the tray over to a process without JavaFX ({@link TrayHandover}). */
    private static volatile boolean handingOver;
    /** The account the window showed when it handed the tray over. */
    private static volatile String handoverUser;
    /** Another launch asked for the window while this one was handing the tray over: start a window instead. */
    private static volatile boolean shownDuringHandover;

    private volatile Backend backend;
    private AppAssembly assembly;
    private final boolean probe = "1".equals(System.getenv("LEASESYNC_STARTUP_PROBE"));
    /**
     * Started at login (the autostart entry) without going through the tray process: the window stays
     * in the tray until opened, when there is one. Never when the tray process opens the window.
     */
    private final boolean startHidden = handoff == null && "1".equals(System.getenv(Autostart.START_HIDDEN_ENV));

    private volatile long firstFrameMs = -1;

    /**
     * Opens the window and blocks until it is closed.
     *
     * @return the exit code
     * @throws LeasesyncException with one plain line when the desktop cannot show a window: no display,
     *     a display nobody answers on, or GTK 3 missing
     */
    public static int launch(Backend.AppSettings s) {
        return launch(s, java.util.Set.of());
    }

    /**
     * Opens the window and blocks until it is closed; start options not in {@code given} come from
     * {@code settings.json} when it sets them ({@link StartOptions#read}).
     *
     * @param given the options given on the command line or by environment, e.g. {@code --schedule-interval}
     * @return the exit code
     * @throws LeasesyncException as {@link #launch(Backend.AppSettings)}
     */
    public static int launch(Backend.AppSettings s, java.util.Set<String> given) {
        DisplayCheck.check(System.getenv(), System.getProperties());
        SingleInstance.Claim claim = SingleInstance.claim(s.dataDir(), SingleInstance.ANSWER_WITHIN);
        if (claim instanceof SingleInstance.Claim.Shown) {
            System.out.println("leasesync already runs on "
                    + s.dataDir().toAbsolutePath().normalize() + "; its window was brought to the front");
            return 0;
        }
        instance = ((SingleInstance.Claim.First) claim).instance();
        options = StartOptions.read(s, given);
        return run();
    }

    /**
     * Opens the window in this process on what the tray process hands over (its backend, its hold on
     * the data directory's window), and blocks until it is closed. JavaFX starts now: the tray process
     * had not loaded it.
     *
     * @return the exit code
     * @throws LeasesyncException as {@link #launch(Backend.AppSettings)}
     */
    public static int open(org.leasesync.desktop.resident.Handoff h) {
        handoff = h;
        instance = h.instance();
        options = h.options();
        return run();
    }

    private static int run() {
        settings = options.settings();
        exitCode = 0;
        RenderMemory.configure(System.getProperties());
        RenderMemory.choosePipeline(System.getProperties(), RenderMemory.GPU_DEVICES);
        RenderMemory.keepGtkOffOpenGl(System.getProperties());
        org.leasesync.desktop.tray.AwtTray.quietToolkit(); // read once, when the tray starts AWT
        try {
            Application.launch(App.class);
        } catch (RuntimeException | LinkageError e) {
            throw DisplayCheck.explain(e, System.getenv());
        } finally {
            instance.close();
        }
        if (handingOver) {
            return startTrayProcess();
        }
        return exitCode;
    }

    /**
     * After the window's process has stopped (runs ended, leases released, the database closed, the
     * data directory's window let go): starts the tray process in its place ({@link TrayHandover}).
     */
    private static int startTrayProcess() {
        var command = org.leasesync.desktop.resident.TrayProcessStart.command(java.nio.file.Path.of("/proc/self"));
        if (command.isEmpty()) {
            log.error("could not hand the tray over: this process's command line cannot be read; leasesync stops");
            return 1;
        }
        try {
            boolean window = shownDuringHandover;
            Process p = org.leasesync.desktop.resident.TrayProcessStart.start(command.get(), handoverUser, !window);
            if (window) {
                log.info("another launch asked for the window during the handover; process {} opens it", p.pid());
            } else {
                log.info("handed the tray over to process {}, which runs without the window", p.pid());
            }
            return 0;
        } catch (java.io.IOException e) {
            log.error("could not hand the tray over ({}); leasesync stops", e.getMessage());
            return 1;
        }
    }

    /**
     * SIGTERM (or Ctrl-C, or SIGHUP at logout) while the window is open: JavaFX does not call
     * {@link #stop()} then, so this cancels the runs (each records "cancelled" and releases its lease),
     * closes the database and the embedded server, and logs that it stopped cleanly, before the JVM exits.
     */
    private volatile StopSignals onSignal;

    private final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();

    private void stopOnSignal() {
        log.info(
                "stopping: the process was told to stop (SIGTERM, Ctrl-C or logout); cancelling runs, releasing leases");
        // the window's timers and background reads stop first (FX thread), so nothing reads the database as it closes
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        try {
            Platform.runLater(() -> {
                try {
                    if (assembly != null) {
                        assembly.close();
                    }
                } finally {
                    closed.countDown();
                }
            });
            if (!closed.await(2, java.util.concurrent.TimeUnit.SECONDS)) {
                log.warn("the window did not stop its background work within 2 s; closing anyway");
            }
        } catch (IllegalStateException | InterruptedException e) {
            log.info("the window's thread is gone ({}); closing the rest", e.toString());
        }
        if (closeBackend()) {
            log.info("stopped cleanly");
        }
        instance.close();
    }

    /** Closes the backend once; true if this call closed it. */
    private boolean closeBackend() {
        if (!stopped.compareAndSet(false, true)) {
            return false;
        }
        Backend b = backend;
        if (b != null) {
            b.close(Duration.ofSeconds(5));
        }
        return true;
    }

    @Override
    public void start(Stage stage) {
        onSignal = StopSignals.install(this::stopOnSignal);
        stage.setTitle("leasesync");
        var icon = org.leasesync.desktop.AppIcon.open();
        if (icon != null) {
            stage.getIcons().add(new Image(icon));
        }
        ProgressIndicator spinner = new ProgressIndicator();
        spinner.setMaxSize(48, 48);
        Label startingText = new Label(messages().get("app.starting"));
        VBox starting = new VBox(16, spinner, startingText);
        starting.setAlignment(Pos.CENTER);
        stage.setScene(new Scene(starting));
        // sized before it is first shown, by the rule the cards' window keeps: a "Starting…" pane larger
        // than the screen's work area would otherwise open at whatever size the toolkit falls back to
        WindowPlacement.beforeFirstShow(
                stage, org.leasesync.desktop.SettingsFile.peekWindowGeometry(settings.dataDir()));
        if (!startHidden) {
            stage.show();
        }
        afterNextFrame(() -> {
            firstFrameMs = sinceJvmStartMs();
            // The theme's large stylesheet is parsed after the first frame, while the backend starts.
            Application.setUserAgentStylesheet(new PrimerLight().getUserAgentStylesheet());
        });
        org.leasesync.desktop.resident.Handoff h = handoff;
        if (h != null && h.backend().isPresent()) {
            backend = h.backend().get();
            Backend b = backend;
            Platform.runLater(() -> showCards(stage, b));
            instance.onShow(() -> Platform.runLater(() -> showFromAnotherLaunch(stage)));
            return;
        }
        Thread starter = new Thread(
                () -> {
                    try {
                        Backend b = Backend.start(
                                settings,
                                (from, to) -> Platform.runLater(
                                        () -> startingText.setText(messages().get("app.upgrading"))));
                        backend = b;
                        Platform.runLater(() -> showCards(stage, b));
                    } catch (RuntimeException e) {
                        log.error("leasesync could not start", e);
                        Platform.runLater(() -> failed(e));
                    }
                },
                "app-start");
        starter.setDaemon(true);
        starter.start();
        instance.onShow(() -> Platform.runLater(() -> showFromAnotherLaunch(stage)));
    }

    /** Another launch on this data directory asked for the window: shown, restored and raised. FX thread. */
    private void showFromAnotherLaunch(Stage stage) {
        if (assembly != null) {
            assembly.lifecycle().open();
        } else {
            WindowLifecycle.raise(stage); // still starting
        }
    }

    private void showCards(Stage stage, Backend b) {
        assembly = new AppAssembly(
                b, options, stage, Platform::runLater, HostDesktop.system(autostartArgs(settings), messages()));
        assembly.show(!startHidden);
        if (stage.isFocused() || startHidden) {
            // its focus-gained event came before the triggers existed; started in the tray, the start
            // counts as coming to the foreground too (one sync at login, not only after the timer)
            assembly.focusedBeforeCards();
        }
        AppAssembly a = assembly;
        Thread trayStarter = new Thread(a::installTray, "tray-start"); // AWT starts in the background
        trayStarter.setDaemon(true);
        trayStarter.start();
        settleHeapLater();
        HiddenSettle.watch(stage);
        watchForHandover(stage, b);
        org.leasesync.desktop.resident.Handoff h = handoff;
        if (h != null) {
            h.user().ifPresent(a.viewModel()::switchAccount);
            h.at().ifPresent(a.lifecycle()::openAt);
            if (h.settings()) {
                a.openSettings();
            }
        }
        if (probe) {
            afterNextFrame(() -> {
                System.out.println("startup first_frame_ms=" + firstFrameMs + " ready_ms=" + sinceJvmStartMs()
                        + " rss_kb=" + rssKb());
                System.out.flush();
                Platform.exit();
            });
        }
    }

    /**
     * Hands the tray over to a process without JavaFX once the window has been hidden to the tray for
     * a while ({@link TrayHandover}), unless {@link TrayHandover#ENV} turns it off or this process's
     * command line cannot be read (then the window just stays in the tray).
     */
    private void watchForHandover(Stage stage, Backend b) {
        var after = TrayHandover.after(System.getenv());
        if (after.isEmpty() || probe) {
            return;
        }
        if (org.leasesync.desktop.resident.TrayProcessStart.command(java.nio.file.Path.of("/proc/self"))
                .isEmpty()) {
            log.info("the window stays in the tray when closed: this process's command line cannot be read");
            return;
        }
        TrayHandover handover = new TrayHandover(
                () -> !stage.isShowing()
                        && assembly.lifecycle().hidesToTray()
                        && b.runtime().coordinator().localRuns().isEmpty()
                        && javafx.stage.Window.getWindows().stream().noneMatch(javafx.stage.Window::isShowing),
                b.runtime().timer(),
                Platform::runLater,
                after.get(),
                () -> {
                    handoverUser = assembly.viewModel().currentUser();
                    handingOver = true;
                    // the FX thread is ending: a launch asking for the window from now on is answered
                    // by the process this one starts in its place, which then opens the window
                    instance.onShow(() -> shownDuringHandover = true);
                    log.info(
                            "the window has been in the tray for {}; handing the tray over to a process without "
                                    + "the window, which frees the window's memory",
                            org.leasesync.client.DurationText.format(after.get()));
                    Platform.exit();
                });
        stage.showingProperty().addListener((o, was, now) -> {
            if (now) {
                handover.shown();
            } else {
                handover.hidden();
            }
        });
        if (!stage.isShowing()) {
            handover.hidden();
        }
    }

    /** How long after the cards appear start-up counts as settled: the first runs and the tray are done by then. */
    static final Duration SETTLE_AFTER = Duration.ofSeconds(10);

    /** One full collection once start-up has settled ({@link org.leasesync.desktop.HeapSettle}). */
    private static void settleHeapLater() {
        org.leasesync.desktop.HeapSettle.after(SETTLE_AFTER, "startup-settle");
    }

    /** What the autostart entry adds to the launcher: the data directory, when it is not the default one. */
    private static java.util.List<String> autostartArgs(Backend.AppSettings s) {
        java.nio.file.Path dflt;
        try {
            dflt = org.leasesync.client.DataDirs.resolve(null);
        } catch (IllegalArgumentException e) {
            dflt = null;
        }
        return s.dataDir().equals(dflt)
                ? java.util.List.of()
                : java.util.List.of("--data-dir", s.dataDir().toString());
    }

    /** The texts in the window's language (the settings' language, else the system's). */
    private static Messages messages() {
        return new Messages(options.locale(), java.time.ZoneId.systemDefault());
    }

    private void failed(RuntimeException e) {
        Alert alert = new Alert(Alert.AlertType.ERROR, e.getMessage());
        alert.setHeaderText(messages().get("app.couldNotStart"));
        alert.setTitle("leasesync");
        if (!probe) {
            alert.showAndWait();
        }
        exitCode = 1;
        Platform.exit();
    }

    /** Runs {@code then} on the FX thread after the next pulse has rendered. */
    private static void afterNextFrame(Runnable then) {
        new AnimationTimer() {
            private int pulses;

            @Override
            public void handle(long now) {
                if (++pulses == 2) { // the first pulse renders; the second starts after it
                    stop();
                    then.run();
                }
            }
        }.start();
    }

    private static long sinceJvmStartMs() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
    }

    private static long rssKb() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            log.debug("no RSS figure: {}", e.toString());
        }
        return -1;
    }

    @Override
    public void stop() {
        StopSignals signals = onSignal;
        if (signals != null) {
            signals.close(); // blocks if a signal is stopping the app: that stop ends the process
        }
        if (assembly != null) {
            assembly.close();
        }
        if (closeBackend()) {
            log.info("stopped");
        }
    }
}
