package org.leasesync.desktop.fx;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import javafx.stage.Window;
import org.leasesync.desktop.EditSyncDebounce;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.ConflictCopies;
import org.leasesync.store.Database;
import org.leasesync.store.JdbcLocalEdits;

/**
 * The window's conflicts, put together: the cards' conflict counts (read again after every status
 * snapshot that is not a run in progress, every saved edit and every resolution), the conflict view
 * and its window (the cards' Resolve, the Data tab's Conflicts and copies), and the sync that follows
 * a saved edit ({@link EditSyncDebounce} on the runtime's timer). FX thread, except where noted.
 */
final class ConflictAssembly implements AutoCloseable {

    private final ConflictCopies copies;
    private final MainViewModel vm;
    private final DataViewModel data;
    private final Executor background;
    private final Executor ui;
    private final Supplier<Window> owner;
    private final ConflictViewModel conflicts;
    private final EditSyncDebounce afterEdit;
    private ConflictWindow window;

    /**
     * @param background reads and writes the database (the window's {@code ui-actions})
     * @param timer runs the sync after an edit ({@code sync-timer})
     * @param owner the main window, beside which the conflict window opens
     */
    ConflictAssembly(
            Database db,
            JdbcLocalEdits edits,
            TimeSource time,
            MainViewModel vm,
            DataViewModel data,
            Executor background,
            Executor ui,
            StatusTexts texts,
            ScheduledExecutorService timer,
            Supplier<Window> owner) {
        this.copies = new ConflictCopies(db, time);
        this.vm = Objects.requireNonNull(vm);
        this.data = Objects.requireNonNull(data);
        this.background = Objects.requireNonNull(background);
        this.ui = Objects.requireNonNull(ui);
        this.owner = Objects.requireNonNull(owner);
        this.conflicts = new ConflictViewModel(edits, copies, vm, background, ui, texts, () -> {
            refresh();
            data.load();
        });
        this.afterEdit = new EditSyncDebounce(
                timer, EditSyncDebounce.DEFAULT_DELAY, key -> ui.execute(() -> vm.editTrigger(key)));
        vm.setResolver(scope -> open(scope, Optional.empty()));
        vm.addStatusListener(s -> {
            if (!(s instanceof KeyStatus.Running)) {
                refresh();
            }
        });
        data.setConflictOpener(this::open);
        data.setCopyCount(key -> copies.list(key).size());
        data.setAfterEdit(key -> {
            refresh();
            afterEdit.saved(key);
        });
    }

    /** Reads the signed-in user's conflict counts again, off the FX thread, and shows them on the cards. */
    void refresh() {
        String user = vm.currentUser();
        if (user != null) {
            background.execute(() -> {
                var counts = copies.conflictCounts(user);
                ui.execute(() -> vm.setConflicts(user, counts));
            });
        }
    }

    /** Opens the conflict view of {@code scope}, at {@code changeId}'s conflict when given. */
    void open(Scope scope, Optional<String> changeId) {
        if (window == null) {
            window = new ConflictWindow(conflicts, owner.get());
        }
        conflicts.open(scope, changeId);
        window.show();
    }

    ConflictViewModel viewModel() {
        return conflicts;
    }

    /** The conflict window, once opened (tests). */
    Optional<javafx.stage.Stage> stage() {
        return Optional.ofNullable(window).map(ConflictWindow::stage);
    }

    /** Cancels the armed syncs after edits and hides the conflict window. */
    @Override
    public void close() {
        afterEdit.close();
        if (window != null) {
            window.stage().hide();
        }
    }
}
