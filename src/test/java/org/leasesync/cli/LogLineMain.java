package org.leasesync.cli;

import java.nio.file.Path;
import org.leasesync.desktop.SystemLocale;
import org.slf4j.LoggerFactory;

/**
 * A child process for {@link Utf8LogsProcessTest}: opens the log files of the data directory
 * {@code args[0]} as every command does, writes one INFO line (file only) and one ERROR line (file and
 * console) with a dash and Chinese, and prints the language the window would choose.
 */
public final class LogLineMain {

    private LogLineMain() {}

    public static void main(String[] args) {
        LoggingSetup.addFileLog(Path.of(args[0]));
        var log = LoggerFactory.getLogger(LogLineMain.class);
        log.info("info — 租约已续期 {}", Utf8LogsProcessTest.MARK);
        log.error("error — 同步失败 {}", Utf8LogsProcessTest.MARK);
        System.out.println("language=" + SystemLocale.current().toLanguageTag());
    }
}
