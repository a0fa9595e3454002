package org.leasesync.desktop.tray;

import java.awt.AWTException;
import java.awt.Dimension;
import java.awt.EventQueue;
import java.awt.GraphicsEnvironment;
import java.awt.Menu;
import java.awt.MenuItem;
import java.awt.PopupMenu;
import java.awt.SystemTray;
import java.awt.TrayIcon;
import java.awt.event.MouseAdapter;
import java.awt.event.MouseEvent;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.Pause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tray icon through AWT's {@link SystemTray}: on Linux an XEmbed tray icon
 * (docs/architecture.md, "Living in the background", says why this library). Every AWT call runs on
 * AWT's event thread; the menu's actions are called there and hand over to the FX thread
 * themselves ({@link TrayPort.TrayMenu}). AWT is started only when the X server reports a tray host
 * or cannot be asked ({@link XTrayHost}); without one, {@link #install} returns false at once.
 *
 * <p>Thread-safe: {@link #install} blocks (up to 10 s, while AWT starts); the other methods return
 * at once.
 */
public final class AwtTray implements TrayPort {

    private static final Logger log = LoggerFactory.getLogger(AwtTray.class);

    private final Messages messages;
    // AWT event thread only:
    /** Made when a tray host is there: it reads the PNG through ImageIO, ~60 classes a trayless desktop never needs. */
    private TrayIcons icons;

    private TrayIcon icon;
    /** {@link #icon} for the watch thread, which only compares it. */
    private volatile TrayIcon iconShown;

    private PopupMenu popup;
    private MenuItem status;
    private Menu pauseMenu;
    private MenuItem resume;
    private boolean pausedShown;
    /**
     * The view the icon shows: the same view again (every status refresh sends one) draws nothing, so
     * the icon is not repainted, nor the tray host woken, twice a minute for nothing.
     */
    private TrayView applied;

    private int size;
    private volatile boolean removed;
    /** Watches the tray selection while the icon is installed; null without X or before install. */
    private volatile XTrayHost.OwnerWatch watch;
    /** AWT was asked (its toolkit may be running); false when the X server said there is no tray host. */
    private volatile boolean awtAsked;

    /**
     * The longest AWT's X event thread sleeps in {@code poll(2)} when nothing happens
     * ({@code _AWT_MAX_POLL_TIMEOUT}, milliseconds; AWT's own default is 500). It wakes for every X
     * event and every request of another thread at once; the timeout only bounds how late it sees
     * events another thread's round trip read into Xlib's queue, which for a tray icon is a repaint at
     * most. At AWT's default the thread woke twice a second all day in the tray (docs/benchmarks.md).
     */
    static final String AWT_MAX_POLL_TIMEOUT_MS = "5000";

    /**
     * Sets AWT's poll timeout ({@link #AWT_MAX_POLL_TIMEOUT_MS}) in the process's C environment, where
     * AWT reads it once when its toolkit starts, unless the user set it. Call it at start-up, before
     * any toolkit starts and while no other thread reads the environment ({@link NativeEnv}). Never
     * throws; without libc through JNA, AWT polls at its default.
     *
     * @return whether the variable is set now
     */
    public static boolean quietToolkit() {
        return NativeEnv.setIfUnset("_AWT_MAX_POLL_TIMEOUT", AWT_MAX_POLL_TIMEOUT_MS);
    }

    public AwtTray(Messages messages) {
        this.messages = Objects.requireNonNull(messages, "messages");
    }

    @Override
    public boolean install(TrayMenu menu, TrayView initial) {
        if (GraphicsEnvironment.isHeadless()) {
            log.info("no system tray: AWT is headless");
            return false;
        }
        String display = System.getenv("DISPLAY");
        if (display != null && !display.isBlank() && XTrayHost.query(display) == XTrayHost.Answer.ABSENT) {
            // asked of the X server directly: AWT is not started for a desktop without a tray
            log.info("no system tray on this desktop (no XEmbed tray host)");
            return false;
        }
        awtAsked = true;
        try {
            if (!SystemTray.isSupported()) {
                log.info("no system tray on this desktop (no XEmbed tray host)");
                return false;
            }
            CompletableFuture<Boolean> added = new CompletableFuture<>();
            EventQueue.invokeLater(() -> added.complete(add(menu, initial)));
            return added.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | RuntimeException | Error e) {
            log.warn("no system tray: {}", e.toString());
            return false;
        }
    }

    private boolean add(TrayMenu menu, TrayView initial) {
        if (removed) {
            return false; // the app quit while AWT was starting
        }
        SystemTray tray = SystemTray.getSystemTray();
        Dimension d = tray.getTrayIconSize();
        size = Math.max(16, Math.min(d.width, d.height));
        icons = new TrayIcons();
        popup = new PopupMenu();
        status = new MenuItem(initial.tooltip());
        status.setEnabled(false);
        popup.add(status);
        popup.addSeparator();
        popup.add(item("tray.open", menu.open()));
        popup.add(item("tray.syncAll", menu.syncAll()));
        pauseMenu = new Menu(messages.get("tray.pause"));
        for (Pause.Option o : Pause.Option.values()) {
            MenuItem i = new MenuItem(messages.get("pause." + o.name()));
            i.addActionListener(e -> menu.pause().accept(o));
            pauseMenu.add(i);
        }
        resume = item("tray.resume", menu.resume());
        popup.add(pauseMenu);
        popup.add(item("tray.settings", menu.settings()));
        popup.addSeparator();
        popup.add(item("tray.quit", menu.quit()));
        // items without a font of their own take the popup's (MenuComponent.getFont asks the parent)
        MenuFont.forTexts(menuTexts(initial)).ifPresent(f -> {
            popup.setFont(f);
            log.info("tray menu font: {}", f.getFamily(java.util.Locale.ROOT));
        });
        icon = new TrayIcon(icons.draw(initial.state(), size), initial.tooltip(), popup);
        icon.setImageAutoSize(true);
        icon.addActionListener(e -> menu.open().run());
        icon.addMouseListener(new MouseAdapter() {
            @Override
            public void mouseClicked(MouseEvent e) {
                if (e.getButton() == MouseEvent.BUTTON1 && e.getClickCount() == 1) {
                    menu.open().run();
                }
            }
        });
        iconShown = icon; // before the add: the tray host can show the icon before add returns
        try {
            tray.add(icon);
        } catch (AWTException e) {
            log.warn("the system tray refused the icon: {}", e.getMessage());
            icon = null;
            iconShown = null;
            return false;
        }
        // A tray host that restarts (a panel crash, a session's panel replaced) takes the embedded icon
        // with it, and AWT docks it again into the new host only sometimes: on every new host the icon
        // is taken out and put in again, so it is there whichever way AWT's own re-dock went.
        if (!watchHost(System.getenv("DISPLAY"))) {
            // no watch of our own (no libX11 through JNA): AWT's own signal is all there is
            tray.addPropertyChangeListener("systemTray", e -> {
                if (e.getNewValue() != null && icon != null && !removed) {
                    EventQueue.invokeLater(this::dockAgain);
                }
            });
        }
        apply(initial);
        log.info("tray icon installed ({} px)", size);
        return true;
    }

    /**
     * Reads what the X server said about the tray selection ({@link XTrayHost.OwnerWatch}) whenever it
     * says something, and keeps the icon in the tray host there is:
     * <ul>
     * <li>a tray host that started gets the icon put into it. AWT's own "systemTray" property change
     * misses a host replaced by the next one before AWT saw it gone (the value stays the same
     * SystemTray object, so no event fires);
     * <li>an icon that AWT took out of the SystemTray is put back while a host is there. AWT removes
     * the icon itself when it sees its window handed back to the root window (what the X server does
     * with a dead host's embedded windows), and that removal can come after the new host was already
     * served, leaving no icon at all: so for {@link #FOLLOW_UPS} looks after a new host, every
     * {@link #HOST_POLL}, the icon is looked for.
     * </ul>
     * In between, the thread sleeps until the X server sends something, looking once every
     * {@link #HOST_RECHECK} all the same (a host that does not announce itself, a removal later than
     * the follow-ups). Idle in the tray it so wakes once a minute, not once a second.
     *
     * @return false when no watch could be opened (no X display or no libX11): the caller then relies
     *         on AWT's own signal
     */
    private boolean watchHost(String display) {
        if (display == null || display.isBlank()) {
            return false;
        }
        java.util.Optional<XTrayHost.OwnerWatch> opened = XTrayHost.OwnerWatch.open(display);
        if (opened.isEmpty()) {
            return false;
        }
        watch = opened.get();
        Thread t = new Thread(() -> watchLoop(watch, SystemTray.getSystemTray()), "tray-host-watch");
        t.setDaemon(true);
        t.start();
        return true;
    }

    private void watchLoop(XTrayHost.OwnerWatch w, SystemTray tray) {
        try {
            int followUps = 0;
            while (!removed) {
                w.await(followUps > 0 ? HOST_POLL.toMillis() : HOST_RECHECK.toMillis());
                if (removed) {
                    break;
                }
                XTrayHost.OwnerWatch.Seen seen = w.poll();
                if (seen.newHost()) {
                    log.info(
                            "a tray host started (window 0x{}); putting the icon into it",
                            Long.toHexString(seen.owner()));
                    EventQueue.invokeLater(this::dockAgain);
                    followUps = FOLLOW_UPS;
                } else if (seen.owner() != 0
                        && !java.util.Arrays.asList(tray.getTrayIcons()).contains(iconShown)) {
                    EventQueue.invokeLater(this::putBackIfGone);
                    followUps = FOLLOW_UPS;
                } else if (followUps > 0) {
                    followUps--;
                }
            }
        } catch (RuntimeException | Error e) {
            log.warn("stopped watching the tray host: {}", e.toString());
        } finally {
            w.close();
        }
    }

    /** How often the icon is looked for in the seconds after a tray host started. */
    static final java.time.Duration HOST_POLL = java.time.Duration.ofSeconds(1);

    /** How many {@link #HOST_POLL} looks follow a tray host's start or a put-back. */
    static final int FOLLOW_UPS = 15;

    /** The longest the watch sleeps without a word from the X server. */
    static final java.time.Duration HOST_RECHECK = java.time.Duration.ofSeconds(60);

    /** Puts the icon back when AWT took it out of the tray while a host is there (AWT event thread). */
    private void putBackIfGone() {
        if (icon == null || removed) {
            return;
        }
        SystemTray tray = SystemTray.getSystemTray();
        if (java.util.Arrays.asList(tray.getTrayIcons()).contains(icon)) {
            return;
        }
        try {
            tray.add(icon);
            log.info("the tray icon was out of the tray; put it back");
        } catch (AWTException | IllegalArgumentException e) {
            log.warn("the tray host refused the icon: {}", e.getMessage());
        }
    }

    /** Puts the icon into a tray host that came after it was added (AWT event thread). */
    private void dockAgain() {
        if (icon == null || removed) {
            return;
        }
        SystemTray tray = SystemTray.getSystemTray();
        tray.remove(icon);
        try {
            tray.add(icon);
            log.info("tray icon put into the tray host that started");
        } catch (AWTException | IllegalArgumentException e) {
            log.warn("the new tray host refused the icon: {}", e.getMessage());
        }
    }

    private static final int PAUSE_INDEX = 4; // status, separator, open, sync all, then pause/resume

    /** Every text the menu shows: its items, the pause choices and the status line. */
    java.util.List<String> menuTexts(TrayView initial) {
        java.util.List<String> texts = new java.util.ArrayList<>(java.util.List.of(initial.tooltip()));
        for (String k :
                new String[] {"tray.open", "tray.syncAll", "tray.pause", "tray.resume", "tray.settings", "tray.quit"}) {
            texts.add(messages.get(k));
        }
        for (Pause.Option o : Pause.Option.values()) {
            texts.add(messages.get("pause." + o.name()));
        }
        return texts;
    }

    private MenuItem item(String key, Runnable action) {
        MenuItem i = new MenuItem(messages.get(key));
        i.addActionListener(e -> action.run());
        return i;
    }

    @Override
    public void show(TrayView view) {
        if (removed) {
            return;
        }
        EventQueue.invokeLater(() -> {
            if (icon != null && !removed && !view.equals(applied)) {
                apply(view);
            }
        });
    }

    private void apply(TrayView view) {
        applied = view;
        icon.setImage(icons.draw(view.state(), size));
        icon.setToolTip(view.tooltip());
        status.setLabel(view.tooltip());
        if (view.paused() != pausedShown) {
            popup.remove(PAUSE_INDEX);
            popup.insert(view.paused() ? resume : pauseMenu, PAUSE_INDEX);
            pausedShown = view.paused();
        }
    }

    @Override
    public boolean iconShown() {
        return iconShown != null && !removed;
    }

    @Override
    public void remove() {
        if (removed) {
            return;
        }
        removed = true;
        if (watch != null) {
            watch.wake(); // its thread sees removed and closes the connection
        }
        if (!awtAsked || GraphicsEnvironment.isHeadless()) {
            return; // AWT never started: nothing to remove, and no toolkit to start just to quit
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        EventQueue.invokeLater(() -> {
            try {
                if (icon != null) {
                    SystemTray.getSystemTray().remove(icon);
                    icon = null;
                    iconShown = null;
                }
            } finally {
                done.complete(null);
            }
        });
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("could not remove the tray icon: {}", e.toString());
        }
    }
}
