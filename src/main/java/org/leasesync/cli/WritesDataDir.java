package org.leasesync.cli;

/**
 * Marks a command that writes to the data directory (and so also logs to its file). Read-only
 * commands such as {@code status} create nothing there.
 */
public interface WritesDataDir {
}
