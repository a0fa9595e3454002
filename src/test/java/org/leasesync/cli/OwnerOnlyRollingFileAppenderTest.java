package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.OtherAccount;
import org.leasesync.testing.ProcessTest;

/**
 * The log file and its rolled, compressed archives are owner-only, though Logback creates both with
 * the process umask (Maven's JVM here runs under 022, where they would be 0644). On a logger
 * context of its own, so the test's logging is untouched.
 */
@ProcessTest
class OwnerOnlyRollingFileAppenderTest {

    @TempDir
    Path tmp;

    @Test
    void theLogFileAndItsCompressedArchiveAreOwnerOnly() throws Exception {
        Path logs = tmp.resolve("logs");
        LoggerContext ctx = new LoggerContext();
        PatternLayoutEncoder enc = new PatternLayoutEncoder();
        enc.setContext(ctx);
        enc.setPattern("%msg%n");
        enc.start();
        OwnerOnlyRollingFileAppender<ILoggingEvent> file = new OwnerOnlyRollingFileAppender<>();
        file.setContext(ctx);
        file.setFile(logs.resolve("leasesync.log").toString());
        SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
        policy.setContext(ctx);
        policy.setParent(file);
        // A new period every second, so the test sees a rollover soon (Logback checks the size at most once a minute).
        policy.setFileNamePattern(
                logs.resolve("leasesync.%d{yyyy-MM-dd_HH-mm-ss}.%i.log.gz").toString());
        policy.setMaxFileSize(FileSize.valueOf("10MB"));
        policy.start();
        file.setRollingPolicy(policy);
        file.setEncoder(enc);
        file.start();
        try {
            ctx.getLogger("test").addAppender(file);
            ctx.getLogger("test").info("before the rollover");
            assertThat(OtherAccount.notOwnerOnly(logs)).as("the active file").isEmpty();

            // Megabytes of events over a period boundary or two, then one event in the next period:
            // each rollover compresses the file it ends on Logback's own thread, where the archive
            // is created with the umask (a plain RollingFileAppender leaves every archive 0644 here).
            while (System.currentTimeMillis() % 1000 > 100) {
                Thread.sleep(5);
            }
            for (int i = 0; i < 60_000; i++) {
                ctx.getLogger("test").info("event {} {}", i, java.util.UUID.randomUUID());
            }
            Thread.sleep(1100 - System.currentTimeMillis() % 1000);
            ctx.getLogger("test").info("after the rollover");

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline
                    && !(names(logs).stream().anyMatch(n -> n.endsWith(".gz"))
                            && names(logs).stream().noneMatch(n -> n.endsWith(".tmp"))
                            && OtherAccount.notOwnerOnly(logs).isEmpty())) {
                Thread.sleep(50);
            }
            assertThat(names(logs)).anyMatch(n -> n.endsWith(".log.gz"));
            assertThat(OtherAccount.notOwnerOnly(logs))
                    .as("the archive once compressed, and the new file")
                    .isEmpty();
        } finally {
            ctx.stop();
        }
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }
}
