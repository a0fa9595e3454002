package org.leasesync.desktop.fx;

import java.util.Objects;
import java.util.function.Consumer;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;
import org.leasesync.lease.Scope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What closing the window means. With a tray icon, closing hides the window and everything keeps
 * running (timer, retries, notifications): JavaFX must then not end when its last window hides
 * ({@code Platform.setImplicitExit(false)}), and only Quit ends the app. Without a tray, closing
 * quits the app, and the window says so once.
 *
 * <p>FX thread only.
 */
final class WindowLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WindowLifecycle.class);

    private final Stage stage;
    private final MainViewModel vm;
    private final BackgroundViewModel desktop;
    private final Consumer<Boolean> implicitExit;
    private final Runnable exit;
    private final java.util.function.BooleanSupplier iconShown;
    private final javafx.event.EventHandler<WindowEvent> onClose = this::onClose;
    private boolean tray;
    /** The user closed the window while no tray was known: that quits, whatever the tray answers later. */
    private boolean closedToQuit;
    /** The window was hidden to an icon the user could see before the tray's answer came. */
    private boolean hiddenBeforeAnswer;

    /**
     * @param implicitExit {@code Platform::setImplicitExit}
     * @param exit ends the app ({@code Platform::exit}; {@link App#stop()} closes everything)
     * @param iconShown whether the tray icon can be seen now ({@code TrayPort::iconShown}): a close
     *        after the user saw the icon hides the window there even before the tray's answer arrives
     */
    WindowLifecycle(
            Stage stage,
            MainViewModel vm,
            BackgroundViewModel desktop,
            Consumer<Boolean> implicitExit,
            Runnable exit,
            java.util.function.BooleanSupplier iconShown) {
        this.stage = Objects.requireNonNull(stage);
        this.vm = Objects.requireNonNull(vm);
        this.desktop = Objects.requireNonNull(desktop);
        this.implicitExit = Objects.requireNonNull(implicitExit);
        this.exit = Objects.requireNonNull(exit);
        this.iconShown = Objects.requireNonNull(iconShown);
        stage.addEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, onClose);
    }

    private void onClose(WindowEvent e) {
        if (!tray && iconShown.getAsBoolean()) {
            // The icon is in the tray and its answer is on its way to this thread: the user closed a
            // window whose icon they can see, which hides it there (JavaFX must not end with it).
            implicitExit.accept(false);
            hiddenBeforeAnswer = true;
            e.consume();
            stage.hide();
            log.info("window closed; leasesync keeps running in the tray");
        } else if (tray) {
            e.consume();
            stage.hide();
            log.info("window closed; leasesync keeps running in the tray");
        } else {
            closedToQuit = true;
            log.info("window closed; stopping");
        }
    }

    /** Stops handling the window's close (the assembly is closing). */
    void dispose() {
        stage.removeEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, onClose);
    }

    /** Whether closing the window hides it to the tray. */
    boolean hidesToTray() {
        return tray;
    }

    /** The tray icon is in place ({@code true}) or this desktop has none ({@code false}). */
    void trayReady(boolean installed) {
        tray = installed;
        if (installed && closedToQuit) {
            // the user closed the window before the tray was in place: that close was a quit
            log.info("window was closed before the tray icon was ready; stopping");
            exit.run();
        } else if (installed) {
            implicitExit.accept(false);
            log.info("closing the window hides it in the tray");
        } else {
            desktop.noTray();
            if (hiddenBeforeAnswer) {
                implicitExit.accept(true); // the icon went away again: closing quits from now on
            }
            if (!stage.isShowing() && !closedToQuit) {
                open(); // started hidden, but there is no tray to come back from
            }
        }
    }

    /** Shows the window (from the tray, a notification, or a start in the tray without one). */
    void open() {
        raise(stage);
    }

    /** Shows {@code stage}, restores it when iconified and brings it to the front. FX thread. */
    static void raise(Stage stage) {
        if (stage.isIconified()) {
            stage.setIconified(false);
        }
        stage.show();
        stage.toFront();
        stage.requestFocus();
    }

    /** Shows the window at {@code scope}'s card (a notification about it was clicked). */
    void openAt(Scope scope) {
        log.info("window opened at the card of {}", scope.wireName());
        open();
        vm.highlight(scope);
    }

    /** Ends the app. */
    void quit() {
        log.info("quit from the menu");
        exit.run();
    }
}
