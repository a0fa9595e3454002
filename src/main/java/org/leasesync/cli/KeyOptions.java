package org.leasesync.cli;

import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSyncRemote;
import picocli.CommandLine.Option;

/** {@code --user} and {@code --scope}: the task key a command works on. */
public final class KeyOptions {

    @Option(names = "--user", required = true, description = "User id.")
    String user;

    @Option(names = "--scope", required = true, description = "Scope: course_sync, message_sync or backup.")
    String scope;

    /** @throws IllegalArgumentException naming the option and the bad user id or scope */
    public TaskKey key() {
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

    /** The user id as given. */
    public String user() {
        return user;
    }
}
