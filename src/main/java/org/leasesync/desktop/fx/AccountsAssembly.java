package org.leasesync.desktop.fx;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javafx.stage.Window;
import org.leasesync.client.AccountService;
import org.leasesync.client.NamedThreads;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.WindowAccounts;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;

/**
 * The window's accounts, put together: the switcher's view model, the Sign in dialog and its view
 * model, and the executor they sign in and out on.
 *
 * <p>Owns the executor {@code accounts} (one thread: a sign-in may wait minutes on a keyring prompt,
 * and must not hold up the window's other background work on {@code ui-actions});
 * {@link #close()} stops it. FX thread.
 */
final class AccountsAssembly implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AccountsAssembly.class);

    private final ExecutorService thread = Executors.newSingleThreadExecutor(new NamedThreads("accounts", true));
    /** Dropped silently once the window is closing. */
    private final Executor work = task -> {
        try {
            thread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("window closing; dropped an account task");
        }
    };

    private final AccountsViewModel accounts;
    private final SignInViewModel signIn;
    private final Messages messages;
    private final Supplier<Window> owner;
    private final Runnable beforeOpening;
    private SignInDialog dialog;

    /**
     * @param owner the window the dialog belongs to
     * @param beforeOpening brings the main window up first (the dialog may be asked for from the tray)
     */
    AccountsAssembly(
            WindowAccounts windowAccounts,
            MainViewModel vm,
            Executor ui,
            Messages messages,
            TimeSource time,
            Predicate<TaskKey> due,
            Supplier<Window> owner,
            Runnable beforeOpening) {
        this.messages = messages;
        this.owner = owner;
        this.beforeOpening = beforeOpening;
        this.accounts = new AccountsViewModel(windowAccounts, vm, work, ui, messages, due);
        this.signIn = new SignInViewModel(windowAccounts, work, ui, messages, time, accounts::signedIn);
        work.execute(() -> {
            String name = AccountService.defaultDeviceName(); // may wait on the resolver: not the FX thread
            ui.execute(() -> signIn.setDefaultDevice(name));
        });
    }

    AccountsViewModel accounts() {
        return accounts;
    }

    SignInViewModel signIn() {
        return signIn;
    }

    /** Sign in (from the demo) or Add account: the dialog, empty. */
    void openNew() {
        signIn.openNew(accounts.anySignedInProperty().get());
        show();
    }

    /** Sign in again as the account shown (its card is signed out); a new sign-in when it is not signed in here. */
    void openAgain() {
        accounts.currentAccount()
                .ifPresentOrElse(
                        signIn::openAgain,
                        () -> signIn.openNew(accounts.anySignedInProperty().get()));
        show();
    }

    private void show() {
        beforeOpening.run();
        if (dialog == null) {
            dialog = new SignInDialog(signIn, owner.get(), messages);
        }
        dialog.show();
    }

    boolean dialogShowing() {
        return dialog != null && dialog.stage().isShowing();
    }

    @Override
    public void close() {
        if (dialog != null) {
            dialog.stage().hide();
        }
        thread.shutdownNow();
    }
}
