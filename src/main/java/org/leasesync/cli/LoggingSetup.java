package org.leasesync.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import java.io.IOException;
import java.nio.file.Path;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.StoreException;
import org.leasesync.store.h2.DataDirectory;
import org.slf4j.LoggerFactory;

/**
 * Adds the log files in the data directory ({@code logs/leasesync.YYYY-MM-DD.N.log}) to the console
 * logging configured by {@code logback.xml}. Call once, at start-up, from the main thread.
 *
 * <p>Several leasesync processes share one data directory — the window, {@code sync} runs, a
 * {@code login} — and so one log folder. Logback's rolling appender renames its active file on a
 * roll-over, which leaves every other process writing into the renamed, then deleted, file, so
 * their lines are lost. The files are therefore written in Logback's <em>prudent mode</em>, its
 * documented way for several JVMs to share log files ("Prudent mode", Logback manual, chapter
 * Appenders): each write takes an exclusive file lock and appends at the end, and the active file is
 * named by the pattern alone (no {@code file} property), so a roll-over only moves on to the next
 * name and never renames or deletes a file another process writes. Prudent mode does not support
 * compression, so the files are plain text, always UTF-8. Bounds: a new file per day or after 10 MB, 7 days and
 * 100 MB in all ({@code maxHistory}, {@code totalSizeCap}, also cleaned at every start).
 *
 * <p>The data directory and {@code logs/} are made (or tightened) owner-only first, and the log
 * files are owner-only ({@link OwnerOnlyRollingFileAppender}). {@link #logFolder} tells the user where.
 */
public final class LoggingSetup {

    private static volatile boolean fileAdded;
    /** The folder written to once {@link #addFileLog} ran, else null. */
    private static volatile Path activeFolder;

    /** The log files' names in {@code logs/}: a day and a number, never compressed (prudent mode). */
    static final String FILE_NAME_PATTERN = "leasesync.%d{yyyy-MM-dd}.%i.log";

    private LoggingSetup() {}

    /**
     * Logs to {@code dataDir/logs/leasesync.YYYY-MM-DD.N.log} from now on (Logback prudent mode, so several processes share the files). Idempotent.
     *
     * @throws StoreException naming the directory and what to do when the data directory belongs to
     *     another account, is a file, or cannot be created or made owner-only
     */
    public static synchronized void addFileLog(Path dataDir) {
        if (fileAdded || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return;
        }
        // Owner-only, and what an earlier version or the user's mkdir left wider tightened, before
        // anything is written there (the data directory's checks, then the logs directory).
        Path dir = DataDirectory.prepare(dataDir).resolve("logs");
        try {
            OwnerOnlyFiles.directory(dir);
        } catch (IOException e) {
            throw new StoreException(
                    "cannot create the logs directory " + dir + ": " + e.getMessage()
                            + ". Choose another data directory with --data-dir or LEASESYNC_DATA_DIR.",
                    e);
        }
        PatternLayoutEncoder enc = new PatternLayoutEncoder();
        enc.setContext(ctx);
        enc.setPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
        // UTF-8 whatever the locale: without it Logback encodes in the JVM's default charset, which on
        // Java 17 is ASCII in a C/POSIX locale or one not generated, writing '?' for '—' and every Chinese text
        enc.setCharset(java.nio.charset.StandardCharsets.UTF_8);
        enc.start();
        RollingFileAppender<ILoggingEvent> file = new OwnerOnlyRollingFileAppender<>();
        file.setContext(ctx);
        file.setName("FILE");
        file.setPrudent(true); // no setFile: in prudent mode the pattern names the active file
        SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
        policy.setContext(ctx);
        policy.setParent(file);
        policy.setFileNamePattern(dir.resolve(FILE_NAME_PATTERN).toString());
        policy.setMaxFileSize(FileSize.valueOf("10MB"));
        policy.setMaxHistory(7);
        policy.setTotalSizeCap(FileSize.valueOf("100MB"));
        policy.setCleanHistoryOnStart(true);
        policy.start();
        file.setRollingPolicy(policy);
        file.setEncoder(enc);
        file.start();
        Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(file);
        if (!root.isEnabledFor(Level.INFO)) {
            root.setLevel(Level.INFO);
        }
        // With the file in place, warnings go there only: the console keeps the command's own
        // one-line messages (and errors), as docs/troubleshooting.md promises.
        var console = root.getAppender("CONSOLE");
        if (console != null) {
            ch.qos.logback.classic.filter.ThresholdFilter errorsOnly =
                    new ch.qos.logback.classic.filter.ThresholdFilter();
            errorsOnly.setLevel("ERROR");
            errorsOnly.setContext(ctx);
            errorsOnly.start();
            console.addFilter(errorsOnly);
        }
        fileAdded = true;
        activeFolder = dir.toAbsolutePath();
    }

    /** The folder this process writes its log lines to; empty before {@link #addFileLog} (or without Logback). */
    public static java.util.Optional<Path> activeLogFolder() {
        return java.util.Optional.ofNullable(activeFolder);
    }

    /**
     * The folder the log files of {@code dataDir} are written to ({@code dataDir/logs}), for telling
     * the user where to look. Touches nothing.
     */
    public static Path logFolder(Path dataDir) {
        return dataDir.toAbsolutePath().normalize().resolve("logs");
    }

    /**
     * Removes the file log again, so that a test can check that a command creates nothing before
     * its input is valid, as in a fresh process.
     */
    static synchronized void removeFileLogForTests() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            var appender = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("FILE");
            if (appender != null) {
                ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(appender);
                appender.stop();
            }
        }
        fileAdded = false;
        activeFolder = null;
    }
}
