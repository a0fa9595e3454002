package org.leasesync.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import org.leasesync.cli.LeasesyncCommand;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;

/**
 * The work whose loaded classes go into the child JVMs' class-data archive ({@link ChildArchive}):
 * what most children do — a reference server, and the CLI syncing, editing and listing against it on
 * a fresh data directory. Any class a later child loads that is not archived is simply loaded from its
 * jar as before.
 */
public final class ChildArchiveTraining {

    private ChildArchiveTraining() {}

    public static void main(String[] args) throws Exception {
        Path data = Files.createTempDirectory("leasesync-cds-training");
        int code;
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults())) {
            String[] common = {"--user", "alice", "--scope", "backup", "--data-dir", data.toString()};
            String[] remote = {"--server", server.baseUrl(), "--token", server.tokenFor("alice")};
            code = cli("sync", common, remote)
                    | cli("edit", common, new String[] {"--id", "training", "--payload", "{\"t\":1}"})
                    | cli("sync", common, remote)
                    | cli("records", common, new String[0])
                    | cli("status", new String[] {"--data-dir", data.toString()}, new String[0]);
        }
        System.exit(code == 0 ? 0 : 1);
    }

    private static int cli(String command, String[] a, String[] b) {
        String[] args = new String[1 + a.length + b.length];
        args[0] = command;
        System.arraycopy(a, 0, args, 1, a.length);
        System.arraycopy(b, 0, args, 1 + a.length, b.length);
        return LeasesyncCommand.commandLine(new LeasesyncCommand(gui -> 2)).execute(args);
    }
}
