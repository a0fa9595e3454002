package org.leasesync.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child process that logs through leasesync's own file log set-up ({@link LoggingSetup}):
 * {@code DATA_DIR NAME LINES [STOP_FILE]} writes {@code LINES} numbered lines of about 1 KB, then —
 * with a stop file — one line every few milliseconds until that file exists; prints the count.
 */
public final class LogWriterMain {

    private LogWriterMain() {}

    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of(args[0]);
        String name = args[1];
        int lines = Integer.parseInt(args[2]);
        Path stop = args.length > 3 ? Path.of(args[3]) : null;
        LoggingSetup.addFileLog(dataDir);
        Logger log = LoggerFactory.getLogger("writer." + name);
        String pad = "x".repeat(1000);
        int n = 0;
        for (; n < lines; n++) {
            log.info("proc {} line {} {}", name, n, pad);
        }
        System.out.println("started " + name);
        System.out.flush();
        while (stop != null && !Files.exists(stop)) {
            log.info("proc {} line {} {}", name, n++, pad);
            Thread.sleep(5);
        }
        System.out.println("wrote " + n);
        System.out.flush();
    }
}
