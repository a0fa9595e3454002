package org.leasesync.desktop.fx;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.desktop.tray.TrayViews;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TimeSource;

/**
 * Keeps the tray in step with the window: the icon shows the worst state of the signed-in account's
 * cards ({@link TrayViews}), the tooltip that state and the last successful sync, the menu
 * Pause or Resume. The menu's actions come from the tray's thread and are handed to the FX thread.
 *
 * <p>{@link #view()} and {@link #update()} on the FX thread; {@link #install} and
 * {@link #installFromBackground} off it (they block while the tray starts).
 */
final class TrayController {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TrayController.class);

    private final TrayPort port;
    private final MainViewModel vm;
    private final BackgroundViewModel desktop;
    private final Messages messages;
    private final TimeSource time;
    private volatile boolean installed;

    TrayController(TrayPort port, MainViewModel vm, BackgroundViewModel desktop, Messages messages, TimeSource time) {
        this.port = Objects.requireNonNull(port);
        this.vm = Objects.requireNonNull(vm);
        this.desktop = Objects.requireNonNull(desktop);
        this.messages = Objects.requireNonNull(messages);
        this.time = Objects.requireNonNull(time);
    }

    /**
     * Puts the icon into the tray with {@code initial} showing; the menu's actions run on {@code ui}.
     * Blocks.
     *
     * @return false when the desktop has no tray
     */
    boolean install(TrayPort.TrayView initial, Executor ui, Runnable open, Runnable settings, Runnable quit) {
        TrayPort.TrayMenu menu = new TrayPort.TrayMenu(
                () -> ui.execute(open),
                () -> ui.execute(vm::syncAll),
                option -> ui.execute(() -> desktop.pause(option)),
                () -> ui.execute(desktop::resume),
                () -> ui.execute(settings),
                () -> ui.execute(quit));
        installed = port.install(menu, initial);
        return installed;
    }

    /**
     * Puts the icon into the tray with the view of this moment (read on {@code ui}), then on {@code ui}
     * tells {@code lifecycle} whether closing the window can hide it there, and shows the state. Blocks
     * while the tray starts (up to 10 s for the first view): call it off the FX thread.
     *
     * @param ui runs on the FX thread
     * @param settings opens the settings dialog, for the menu
     * @return whether the tray icon is there
     */
    boolean installFromBackground(Executor ui, WindowLifecycle lifecycle, Runnable settings) {
        CompletableFuture<TrayPort.TrayView> initial = new CompletableFuture<>();
        ui.execute(() -> initial.complete(view()));
        boolean ok;
        try {
            ok = install(initial.get(10, TimeUnit.SECONDS), ui, lifecycle::open, settings, lifecycle::quit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        } catch (ExecutionException | TimeoutException e) {
            log.warn("no tray: {}", e.toString());
            ok = false;
        }
        boolean result = ok;
        ui.execute(() -> {
            lifecycle.trayReady(result);
            update();
        });
        return result;
    }

    /** Listens to the cards and the pause; call once on the FX thread. */
    void watch() {
        for (Scope s : Scope.values()) {
            vm.card(s).kindProperty().addListener((o, a, b) -> update());
            vm.card(s).headlineProperty().addListener((o, a, b) -> update()); // "2 conflicts" after "1 conflict"
        }
        vm.addStatusListener(s -> update());
        desktop.pausedProperty().addListener((o, a, b) -> update());
    }

    /** What the tray should show now. FX thread. */
    TrayPort.TrayView view() {
        List<KeyStatus.Kind> shown = new ArrayList<>();
        Optional<Instant> last = Optional.empty();
        for (Scope s : Scope.values()) {
            ScopeCardModel c = vm.card(s);
            shown.add(c.kindProperty().get());
            KeyStatus st = c.status();
            if (st != null
                    && st.lastSuccess().isPresent()
                    && (last.isEmpty() || st.lastSuccess().get().isAfter(last.get()))) {
                last = st.lastSuccess();
            }
        }
        int conflicts = 0;
        for (Scope s : Scope.values()) {
            conflicts += vm.overlay().conflicts(s);
        }
        return TrayViews.of(shown, last, conflicts, desktop.pausedProperty().get(), messages, time.now());
    }

    /** Shows the current view in the tray. FX thread. */
    void update() {
        if (installed) {
            port.show(view());
        }
    }

    /** Takes the icon out of the tray. */
    void remove() {
        port.remove();
    }
}
