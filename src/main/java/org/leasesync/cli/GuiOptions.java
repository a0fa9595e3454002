package org.leasesync.cli;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What the GUI is started with when no subcommand is given.
 *
 * @param dataDir the resolved data directory
 * @param server a sync server URL, or empty to start the embedded reference server with demo data
 * @param user the user to sign in as (with {@code server})
 * @param token the user's bearer token (with {@code server})
 */
public record GuiOptions(Path dataDir, Optional<String> server, Optional<String> user, Optional<String> token) { }
