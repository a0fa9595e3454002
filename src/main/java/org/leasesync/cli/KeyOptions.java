package org.leasesync.cli;

import org.leasesync.registry.TaskKey;
import picocli.CommandLine.Option;

/** {@code --user} and {@code --scope}: the task key a command works on. */
public final class KeyOptions {

    @Option(names = "--user", required = true, description = "User id.")
    String user;

    @Option(names = "--scope", required = true, description = "Scope: course_sync, message_sync or backup.")
    String scope;

    /** @throws IllegalArgumentException naming the bad user id or scope */
    public TaskKey key() {
        return TaskKey.of(user, scope);
    }

    /** The user id as given. */
    public String user() {
        return user;
    }
}
