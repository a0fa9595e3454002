package org.leasesync.desktop.fx;

import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.leasesync.run.RunEvent;

/**
 * What the window does when the coordinator reports a run: hands the event to the background
 * services (notifications), and re-reads what the run changed — the data and the history when a run
 * finished, the history alone when one was skipped (e.g. a timer tick found unnecessary with the
 * lease granted). A class of its own so the composition root only registers it.
 *
 * <p>Called on the coordinator's threads; the re-reads are handed to {@code ui}, the FX thread.
 */
final class RunEventReloads implements Consumer<RunEvent> {

    private final BackgroundServices services;
    private final DataViewModel data;
    private final HistoryViewModel history;
    private final Executor ui;

    RunEventReloads(BackgroundServices services, DataViewModel data, HistoryViewModel history, Executor ui) {
        this.services = services;
        this.data = data;
        this.history = history;
        this.ui = ui;
    }

    @Override
    public void accept(RunEvent e) {
        services.accept(e);
        if (e.kind() == RunEvent.Kind.FINISHED) {
            ui.execute(() -> {
                data.load();
                history.load();
            });
        } else if (e.kind() == RunEvent.Kind.SKIPPED) {
            ui.execute(history::load);
        }
    }
}
