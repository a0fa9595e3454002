package org.leasesync;

import org.leasesync.chaos.ChaosAgentCommand;
import org.leasesync.chaos.ChaosCommand;
import org.leasesync.chaos.ClusterCommand;
import org.leasesync.cli.GuiOptions;
import org.leasesync.cli.LeasesyncCommand;
import org.leasesync.cli.Utf8Input;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.fx.App;
import org.leasesync.desktop.resident.Resident;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RetryPolicy;

/**
 * The main class of {@code leasesync.jar}, the jpackage launcher and {@code mvn javafx:run}: a
 * plain {@code main} (not a JavaFX {@code Application}) so that JavaFX on the class path works.
 * With no subcommand it opens the window; with one it runs the CLI. The arguments are read as UTF-8
 * whatever the locale ({@link Utf8Input}).
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) {
        String[] utf8;
        try {
            utf8 = Utf8Input.arguments(args);
        } catch (IllegalArgumentException e) {
            System.err.println("leasesync: " + e.getMessage());
            System.exit(2);
            return;
        }
        picocli.CommandLine cl = LeasesyncCommand.commandLine(
                new LeasesyncCommand(Launcher::gui), new ChaosCommand(), new ChaosAgentCommand(), new ClusterCommand());
        Utf8Input.utf8OutputInAsciiLocale(cl);
        int code = cl.execute(utf8);
        System.exit(code);
    }

    /**
     * The window, or the tray process without it: started by the autostart entry
     * ({@link Autostart#START_HIDDEN_ENV}) or by a window handing the tray over ({@link Resident#ENV}),
     * the app starts in the tray without loading JavaFX, and opens the window in the same process when
     * asked.
     */
    private static int gui(GuiOptions o) {
        Backend.AppSettings s = settings(o);
        java.util.Map<String, String> env = System.getenv();
        boolean atLogin = "1".equals(env.get(Autostart.START_HIDDEN_ENV));
        if (atLogin || Resident.asked(env)) {
            return Resident.launch(s, o.given(), atLogin, App::open);
        }
        return App.launch(s, o.given());
    }

    private static Backend.AppSettings settings(GuiOptions o) {
        return new Backend.AppSettings(
                o.dataDir(),
                o.server(),
                o.user(),
                o.token(),
                o.leaseTtl(),
                o.http(),
                o.scheduleInterval(),
                o.foregroundMinInterval(),
                RetryPolicy.DEFAULT,
                TimeSource.system(),
                o.dbOpenTimeout(),
                o.transport());
    }
}
