package org.leasesync.desktop.fx;

import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.layout.HBox;
import javafx.scene.layout.StackPane;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.Pause;

/**
 * The window's controls for living in the background: the Pause menu (Resume while paused) and the
 * app menu (desktop notifications, start at login, quit). Thin: every handler is one call on
 * {@link BackgroundViewModel}.
 */
final class BackgroundControls {

    private BackgroundControls() {}

    /** "Pause ▾" with its options, or "Paused until 15:00 [Resume syncing]" while paused. */
    static Node pauseControl(BackgroundViewModel desktop, Messages m) {
        MenuButton pause = new MenuButton(m.get("pause.button"));
        pause.setId("pause-menu");
        for (Pause.Option o : Pause.Option.values()) {
            MenuItem item = new MenuItem(m.get("pause." + o.name()));
            item.setId("pause-" + o.name());
            item.setOnAction(e -> desktop.pause(o));
            pause.getItems().add(item);
        }
        Label status = new Label();
        status.setId("pause-status");
        status.textProperty().bind(desktop.pauseTextProperty());
        Button resume = new Button(m.get("pause.resume"));
        resume.setId("resume");
        resume.setOnAction(e -> desktop.resume());
        HBox paused = new HBox(8, status, resume);
        paused.setAlignment(Pos.CENTER_LEFT);
        paused.visibleProperty().bind(desktop.pausedProperty());
        pause.visibleProperty().bind(desktop.pausedProperty().not());
        return new StackPane(pause, paused);
    }

    /**
     * Puts the account entries at the top of the app menu: Sign in… (with the demo) or Add account…
     * (with an account signed in), and Sign out for the account shown when it is signed in here.
     */
    static void accountItems(MenuButton menu, AccountsViewModel accounts, Messages m, Runnable signIn) {
        MenuItem first = new MenuItem(m.get("menu.signIn"));
        first.setId("menu-sign-in");
        first.setOnAction(e -> signIn.run());
        first.visibleProperty().bind(accounts.anySignedInProperty().not());
        MenuItem add = new MenuItem(m.get("menu.addAccount"));
        add.setId("menu-add-account");
        add.setOnAction(e -> signIn.run());
        add.visibleProperty().bind(accounts.anySignedInProperty());
        MenuItem out = new MenuItem();
        out.setId("menu-sign-out");
        out.textProperty().bind(accounts.signOutTextProperty());
        out.visibleProperty().bind(accounts.currentSignedInProperty());
        out.disableProperty().bind(accounts.signingOutProperty());
        out.setOnAction(e -> accounts.signOut());
        menu.getItems().addAll(0, java.util.List.of(first, add, out, new SeparatorMenuItem()));
    }

    /** "Menu ▾": settings, desktop notifications, start at login, open the logs / data folder, about, quit. */
    static MenuButton appMenu(
            BackgroundViewModel desktop, Messages m, Runnable openSettings, FolderActions folders, Runnable quit) {
        MenuItem settings = new MenuItem(m.get("menu.settings"));
        settings.setId("menu-settings");
        settings.setOnAction(e -> openSettings.run());

        CheckMenuItem notify = new CheckMenuItem();
        notify.setId("menu-notifications");
        notify.textProperty()
                .bind(javafx.beans.binding.Bindings.when(desktop.notificationsAvailableProperty())
                        .then(m.get("menu.notifications"))
                        .otherwise(m.get("menu.notifications.unavailable")));
        notify.setSelected(desktop.notificationsProperty().get());
        desktop.notificationsProperty().addListener((o, a, b) -> notify.setSelected(b));
        notify.setOnAction(e -> desktop.setNotifications(notify.isSelected()));

        CheckMenuItem login = new CheckMenuItem(
                desktop.startAtLoginAvailable() ? m.get("menu.startAtLogin") : m.get("menu.startAtLogin.unavailable"));
        login.setId("menu-autostart");
        login.setDisable(!desktop.startAtLoginAvailable());
        login.setSelected(desktop.startAtLoginProperty().get());
        desktop.startAtLoginProperty().addListener((o, a, b) -> login.setSelected(b));
        login.setOnAction(e -> desktop.setStartAtLogin(login.isSelected()));

        MenuItem exit = new MenuItem(m.get("menu.quit"));
        exit.setId("menu-quit");
        exit.setOnAction(e -> quit.run());

        MenuItem logs = new MenuItem(m.get("menu.openLogs"));
        logs.setId("menu-open-logs");
        logs.setOnAction(e -> folders.openLogs());
        MenuItem data = new MenuItem(m.get("menu.openData"));
        data.setId("menu-open-data");
        data.setOnAction(e -> folders.openData());

        MenuItem about = new MenuItem(m.get("menu.about"));
        about.setId("menu-about");

        MenuButton menu = new MenuButton(
                m.get("menu.button"),
                null,
                settings,
                new SeparatorMenuItem(),
                notify,
                login,
                new SeparatorMenuItem(),
                logs,
                data,
                new SeparatorMenuItem(),
                about,
                exit);
        menu.setId("app-menu");
        about.setOnAction(e -> AboutDialog.show(menu.getScene().getWindow(), AboutInfo.of(folders), folders, m));
        return menu;
    }
}
