package org.leasesync;

import org.leasesync.cli.LeasesyncCommand;

/**
 * The main class of {@code leasesync.jar}, the jpackage launcher and {@code mvn javafx:run}: a
 * plain {@code main} (not a JavaFX {@code Application}) so that JavaFX on the class path works.
 * With no subcommand it opens the window; with one it runs the CLI.
 */
public final class Launcher {

    private Launcher() {
    }

    public static void main(String[] args) {
        int code = LeasesyncCommand.commandLine(new LeasesyncCommand(Launcher::gui)).execute(args);
        System.exit(code);
    }

    private static int gui(org.leasesync.cli.GuiOptions options) {
        System.err.println("leasesync: the desktop window is not built yet; use a subcommand (see --help)");
        return 1;
    }
}
