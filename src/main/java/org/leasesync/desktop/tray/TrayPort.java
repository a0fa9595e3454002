package org.leasesync.desktop.tray;

import org.leasesync.desktop.Pause;

/**
 * The system tray as the app sees it: an icon with a tooltip and a menu. {@link AwtTray} is the
 * real one; the UI tests use a recording one. Implementations take calls from any thread and run
 * the menu's actions through {@link TrayMenu} (whose runnables hand over to the FX thread).
 */
public interface TrayPort {

    /**
     * Puts the icon into the tray. Blocks until it is there or known to be impossible.
     *
     * @return false when this desktop has no system tray (nothing was installed)
     */
    boolean install(TrayMenu menu, TrayView initial);

    /** Shows a new state, tooltip and menu state. Does nothing before a successful install or after {@link #remove()}. */
    void show(TrayView view);

    /** Takes the icon out of the tray. Idempotent. */
    void remove();

    /**
     * Whether a user can see the icon in the tray now: true from the moment {@link #install} starts
     * putting it there (the tray host may show it before {@code install} returns) until
     * {@link #remove()} or a failed install. A close of the window is read against this, not against
     * {@code install}'s answer, which reaches the window's thread a moment after the icon is seen.
     * Any thread; never blocks.
     */
    boolean iconShown();

    /**
     * What the tray shows.
     *
     * @param state the icon's state
     * @param tooltip e.g. "Up to date · last successful sync 14:05"
     * @param paused whether the menu offers Resume instead of Pause
     */
    record TrayView(TrayState state, String tooltip, boolean paused) {
        public TrayView {
            java.util.Objects.requireNonNull(state, "state");
            java.util.Objects.requireNonNull(tooltip, "tooltip");
        }
    }

    /**
     * The menu's actions. Each is called on the tray's own thread and must hand its work over.
     *
     * @param open Open: shows the window
     * @param syncAll Sync all: a manual sync of every scope of the signed-in account
     * @param pause Pause: one of the options
     * @param resume Resume
     * @param settings Settings…: opens the window's settings dialog
     * @param quit Quit: ends the app
     */
    record TrayMenu(
            Runnable open,
            Runnable syncAll,
            java.util.function.Consumer<Pause.Option> pause,
            Runnable resume,
            Runnable settings,
            Runnable quit) {
        public TrayMenu {
            java.util.Objects.requireNonNull(open, "open");
            java.util.Objects.requireNonNull(syncAll, "syncAll");
            java.util.Objects.requireNonNull(pause, "pause");
            java.util.Objects.requireNonNull(resume, "resume");
            java.util.Objects.requireNonNull(settings, "settings");
            java.util.Objects.requireNonNull(quit, "quit");
        }
    }
}
