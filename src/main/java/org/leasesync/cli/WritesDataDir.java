package org.leasesync.cli;

/**
 * Marks a command that writes to the data directory (and so also logs to its file). Read-only
 * commands such as {@code status} create nothing there.
 *
 * <p>Such a command is validated before anything is written: {@link #validate()} runs first, and
 * only when it passes is the data directory created and its log file opened. Bad input therefore
 * leaves the file system as it was (exit code 2).
 */
public interface WritesDataDir {

    /**
     * Checks every option of the command, without touching the file system.
     *
     * @throws IllegalArgumentException naming the option and the bad value
     */
    void validate();
}
