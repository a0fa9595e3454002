package org.leasesync.cli;

import java.util.Optional;
import org.leasesync.client.AccountService;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSyncRemote;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --user} and {@code --scope}: the task key a command works on. Without {@code --user}, the
 * user of the one signed-in account ({@code leasesync login}).
 */
public final class KeyOptions {

    @Option(
            names = "--user",
            description = "User id. Default: the signed-in account's user, when one account is "
                    + "signed in (several: name one).")
    String user;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--scope", required = true, description = "Scope: course_sync, message_sync or backup.")
    String scope;

    /** @throws IllegalArgumentException naming the option and the bad user id or scope, or the accounts */
    public TaskKey key() {
        if (user == null) {
            user = accountUser();
        }
        try {
            TaskKey.validateUserId(user);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --user: " + e.getMessage());
        }
        try {
            return new TaskKey(user, Scope.parse(scope));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --scope: " + e.getMessage());
        }
    }

    /**
     * The key, with a user id a sync server accepts (1-64 letters, digits, '.', '_', '-').
     *
     * @throws IllegalArgumentException naming the option and the bad value
     */
    public TaskKey protocolKey() {
        TaskKey key = key();
        try {
            HttpSyncRemote.checkProtocolUserId(user);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --user: " + e.getMessage());
        }
        return key;
    }

    /** The user id as given, or null before {@link #key()} chose the account's. */
    public String user() {
        return user;
    }

    private String accountUser() {
        DataDirMixin dir = mixee == null
                ? null
                : OptionsBeforeSubcommand.dataDirMixin(mixee).orElse(null);
        if (dir == null) {
            throw new IllegalArgumentException("--user is required");
        }
        try {
            return AccountService.forThisProcess(dir.resolve())
                    .choose(Optional.empty(), Optional.empty())
                    .user();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--user is not given, and " + e.getMessage());
        }
    }
}
