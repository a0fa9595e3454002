package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.function.Supplier;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.WindowAccounts;
import org.leasesync.remote.ServerUrls;

/**
 * The window's footer line: the trigger intervals in force and the shown account's server. It
 * follows two things, the intervals (the settings dialog may change them) and the account the window
 * shows; kept apart from {@link AppAssembly} so that the wiring does not also hold the footer's state.
 *
 * <p>FX thread only.
 */
final class WindowFooter {

    private final StringProperty text = new SimpleStringProperty("");
    private final StatusTexts texts;
    private final WindowAccounts accounts;
    private final Supplier<ServerUrls> defaultServers;
    private final MainViewModel vm;
    private Duration scheduleInterval;
    private Duration foregroundMinInterval;

    /** Shows these intervals now, and the account's server again whenever the window shows another account. */
    WindowFooter(
            StatusTexts texts,
            WindowAccounts accounts,
            Supplier<ServerUrls> defaultServers,
            MainViewModel vm,
            Duration scheduleInterval,
            Duration foregroundMinInterval) {
        this.texts = texts;
        this.accounts = accounts;
        this.defaultServers = defaultServers;
        this.vm = vm;
        this.scheduleInterval = scheduleInterval;
        this.foregroundMinInterval = foregroundMinInterval;
        show(scheduleInterval, foregroundMinInterval);
        vm.currentUserProperty().addListener((o, a, b) -> show(this.scheduleInterval, this.foregroundMinInterval));
    }

    /** The footer: the intervals in force and the shown account's server. */
    void show(Duration scheduleInterval, Duration foregroundMinInterval) {
        this.scheduleInterval = scheduleInterval;
        this.foregroundMinInterval = foregroundMinInterval;
        text.set(texts.footer(
                scheduleInterval,
                foregroundMinInterval,
                accounts.entry(vm.currentUser())
                        .map(WindowAccounts.Entry::servers)
                        .orElseGet(defaultServers)));
    }

    StringProperty text() {
        return text;
    }
}
