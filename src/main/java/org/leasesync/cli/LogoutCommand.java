package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync logout}: ends the account's session on the server (best effort: offline, it still
 * signs out here), removes its token and forgets the account. Local records and edits stay. Exit
 * codes: 0 signed out, 1 the token could not be removed (nothing changed), 2 usage error (no such
 * account, or several and no {@code --user}).
 */
@Command(
        name = "logout",
        mixinStandardHelpOptions = true,
        description = {
            "Sign out: end the session on the server (when it can be reached), remove the session token and "
                    + "forget the account. Local records and unsent edits stay in the data directory.",
            "Exit codes: 0 signed out (also when the server could not be told: it says so); 1 the token could not "
                    + "be removed (nothing was changed); 2 usage error."
        })
public final class LogoutCommand implements Callable<Integer>, WritesDataDir {

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    HttpOptions httpOptions;

    @Option(
            names = "--user",
            paramLabel = "NAME",
            description = "The account's user. Default: the one signed-in account.")
    String user;

    @Option(
            names = "--server",
            paramLabel = "URL",
            description = "The account's server, when the user is signed in " + "on several.")
    String server;

    @Spec
    CommandSpec spec;

    private Account account;

    @Override
    public void validate() {
        if (user != null) {
            try {
                HttpSyncRemote.checkProtocolUserId(user);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid --user: " + e.getMessage());
            }
        }
        Optional<ServerUrls> servers = server == null ? Optional.empty() : Optional.of(HttpOptions.checkServer(server));
        httpOptions.settings();
        account = AccountService.forThisProcess(dataDir.resolve()).choose(Optional.ofNullable(user), servers);
    }

    @Override
    public Integer call() {
        if (account == null) {
            try {
                validate();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        AccountService.SignOutResult r =
                AccountService.forThisProcess(dataDir.resolve()).signOut(account, httpOptions.settings());
        PrintWriter out = spec.commandLine().getOut();
        out.println(r.message());
        out.flush();
        return 0;
    }
}
