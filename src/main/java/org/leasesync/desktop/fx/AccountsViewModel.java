package org.leasesync.desktop.fx;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.client.SignInResult;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.WindowAccounts;
import org.leasesync.keyring.TokenVault;
import org.leasesync.lease.TaskKey;

/**
 * The window's accounts: the switcher's entries and their names, what a sign-in does to the window
 * (the account joins the switcher, the window switches to it and syncs its keys at once, so edits
 * kept while signed out are pushed), and signing out (the next account, or the demo again).
 * Switching itself is {@link MainViewModel#switchAccount}: the old account's runs are cancelled and
 * fenced before the new one's cards show.
 *
 * <p>Properties on the FX thread only; signing out runs on the injected {@code accounts} executor
 * (it may block on the network, the session bus and starting the embedded server).
 */
public final class AccountsViewModel {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AccountsViewModel.class);

    private final WindowAccounts accounts;
    private final MainViewModel vm;
    private final Executor work;
    private final Executor ui;
    private final Messages m;
    private final Predicate<TaskKey> due;
    private final ReadOnlyBooleanWrapper anySignedIn = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper currentSignedIn = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper signOutText = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper current = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper signingOut = new ReadOnlyBooleanWrapper(false);

    /**
     * @param work runs the sign-out (blocking) off the FX thread: the {@code accounts} executor
     * @param ui delivers results to the FX thread
     * @param due whether a key is due for a sync after a switch (the foreground rule)
     */
    AccountsViewModel(
            WindowAccounts accounts,
            MainViewModel vm,
            Executor work,
            Executor ui,
            Messages messages,
            Predicate<TaskKey> due) {
        this.accounts = Objects.requireNonNull(accounts);
        this.vm = Objects.requireNonNull(vm);
        this.work = Objects.requireNonNull(work);
        this.ui = Objects.requireNonNull(ui);
        this.m = Objects.requireNonNull(messages);
        this.due = Objects.requireNonNull(due);
        vm.currentUserProperty().addListener((o, a, b) -> refresh());
        accounts.gate().addListener(() -> ui.execute(this::refresh));
        refresh();
    }

    /** The switcher's name of {@code user}: "carol · sync.example.org", or the demo user's id alone. */
    public String label(String user) {
        if (user == null) {
            return "";
        }
        return accounts.entry(user)
                .map(e -> switch (e.kind()) {
                    case DEMO -> user;
                    case SIGNED_IN -> m.get("account.label", user, e.host());
                    case COMMAND_LINE -> m.get("account.label.commandLine", user, e.host());
                })
                .orElse(user);
    }

    /** Switches to {@code user} from the switcher; its due keys sync as when coming back to the window. */
    public void switchTo(String user) {
        vm.switchAccountAndSync(user, due);
    }

    /** The account shown, when it is signed in here (Sign in again offers it; Sign out signs it out). */
    public Optional<Account> currentAccount() {
        return accounts.entry(vm.currentUser()).flatMap(WindowAccounts.Entry::account);
    }

    /**
     * A sign-in succeeded (the dialog's view model says so): the account joins the switcher, the
     * window shows it and syncs all of its keys at once. FX thread.
     */
    void signedIn(SignInResult.SignedIn s) {
        vm.setAccounts(users(accounts.entries()));
        String user = s.account().user();
        if (!user.equals(vm.currentUser())) {
            vm.switchAccount(user);
        }
        vm.syncAll(); // queued behind the switch on the same executor: the new token, the new server
        vm.showBanner(s.notKeyringBecause()
                .map(why -> m.get("banner.signedIn.file", s.account().name(), s.keptIn(), why))
                .orElseGet(() -> m.get("banner.signedIn", s.account().name())));
        refresh();
    }

    /** Signs the account shown out; the window then shows the next account, or the demo. FX thread. */
    public void signOut() {
        Optional<Account> account = currentAccount();
        if (account.isEmpty() || signingOut.get()) {
            return;
        }
        String user = account.get().user();
        signingOut.set(true);
        work.execute(() -> {
            WindowAccounts.SignOut r;
            try {
                r = accounts.signOut(user);
            } catch (RuntimeException e) {
                log.warn("sign-out of {} failed: {}", user, e.toString());
                r = new WindowAccounts.SignOut(
                        Optional.empty(),
                        accounts.entries(),
                        Optional.of(e.getMessage() == null ? e.toString() : e.getMessage()));
            }
            WindowAccounts.SignOut done = r;
            ui.execute(() -> signedOut(account.get(), done));
        });
    }

    private void signedOut(Account account, WindowAccounts.SignOut r) {
        signingOut.set(false);
        vm.setAccounts(users(r.entries()));
        if (r.result().isEmpty()) {
            vm.showBanner(
                    m.get("banner.signOutFailed", account.name(), r.problem().orElse("")));
            refresh();
            return;
        }
        AccountService.SignOutResult res = r.result().get();
        String text = m.get(
                "banner.signedOut." + res.server().name(),
                account.name(),
                res.serverProblem().orElse(""));
        if (!r.entries().isEmpty() && r.entries().get(0).kind() == WindowAccounts.Kind.DEMO) {
            text = text + " " + m.get("banner.demoAgain");
        }
        if (r.problem().isPresent()) {
            text = text + " " + m.get("banner.noDemo", r.problem().get());
        }
        if (!r.entries().isEmpty()) {
            vm.switchAccountAndSync(r.entries().get(0).user(), due);
        }
        vm.showBanner(text); // after the switch, whose own line it replaces
        refresh();
    }

    private static List<String> users(List<WindowAccounts.Entry> entries) {
        return entries.stream().map(WindowAccounts.Entry::user).toList();
    }

    private void refresh() {
        vm.setAccountSignedOut(vm.currentUser() != null && accounts.gate().isSignedOut(vm.currentUser()));
        anySignedIn.set(accounts.anySignedIn());
        Optional<WindowAccounts.Entry> e = accounts.entry(vm.currentUser());
        currentSignedIn.set(
                e.map(x -> x.kind() == WindowAccounts.Kind.SIGNED_IN).orElse(false));
        signOutText.set(currentSignedIn.get() ? m.get("menu.signOut", vm.currentUser()) : "");
        current.set(e.map(x -> switch (x.kind()) {
                    case DEMO -> m.get("settings.account.demo");
                    case SIGNED_IN ->
                        m.get(
                                x.account().orElseThrow().tokenPlace() == TokenVault.Place.KEYRING
                                        ? "settings.account.keyring"
                                        : "settings.account.file",
                                x.user(),
                                x.server());
                    case COMMAND_LINE -> m.get("settings.account.commandLine", x.user(), x.server());
                })
                .orElse(""));
    }

    /** Whether any account is signed in here (the menu then offers Add account rather than Sign in). */
    public ReadOnlyBooleanProperty anySignedInProperty() {
        return anySignedIn.getReadOnlyProperty();
    }

    /** Whether the account shown is signed in here (Sign out is offered). */
    public ReadOnlyBooleanProperty currentSignedInProperty() {
        return currentSignedIn.getReadOnlyProperty();
    }

    /** "Sign out carol". */
    public ReadOnlyStringProperty signOutTextProperty() {
        return signOutText.getReadOnlyProperty();
    }

    /** The account shown, for the settings dialog: who, where, where its token is kept. */
    public ReadOnlyStringProperty currentProperty() {
        return current.getReadOnlyProperty();
    }

    /** Whether a sign-out is on its way. */
    public ReadOnlyBooleanProperty signingOutProperty() {
        return signingOut.getReadOnlyProperty();
    }
}
