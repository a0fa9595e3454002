package org.leasesync.store.h2;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A child JVM that becomes the host of a data directory's shared H2 file and then exits while
 * another process is writing through it. Arguments: the data directory, a file to create once it
 * hosts the database, and the most milliseconds to wait, after a line on standard input, before
 * exiting. The exit is {@code System.exit}: H2's shutdown hook closes the database and every
 * session in it, the remote ones too, as when the app quits.
 */
public final class HostThenExitMain {

    private HostThenExitMain() {}

    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of(args[0]);
        Path ready = Path.of(args[1]);
        int maxDelayMillis = Integer.parseInt(args[2]);
        Connection host = DriverManager.getConnection(DataDirectory.fileUrl(dataDir), "sa", "");
        host.createStatement().execute("CREATE TABLE IF NOT EXISTS written(id INT PRIMARY KEY)");
        Files.writeString(ready, "hosting");
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        Thread.sleep(ThreadLocalRandom.current().nextInt(maxDelayMillis + 1));
        System.exit(0);
    }
}
