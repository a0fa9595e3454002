package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Several real processes share one data directory's log folder across a roll-over: one process
 * writes on while the others, starting on a file past 10 MB, roll it over and write their lines.
 * Every line of every process is found, exactly once, in the log folder afterwards; the files are
 * owner-only and their total stays under the 100 MB cap.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ProcessTest
class SharedLogFilesProcessTest {

    static final int OTHERS = 4;
    static final int LINES = 2000;
    static final Pattern LINE = Pattern.compile("proc (\\S+) line (\\d+) ");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void everyProcessesLinesSurviveARollOverByAnother() throws Exception {
        Path data = tmp.resolve("data");
        Path stop = tmp.resolve("stop");
        Process first = JavaProcess.start(
                LogWriterMain.class, tmp.resolve("first.out"), data.toString(), "first", "10", stop.toString());
        waitFor(tmp.resolve("first.out"), "started first");
        Path logs = data.resolve("logs");
        List<Path> before = files(logs);
        assertThat(before).hasSize(1);
        // days of logging by other processes: the shared file is past its 10 MB
        String filler = "2026-12-01 00:00:00.000 INFO  [filler] filler.Filler - " + "f".repeat(200) + "\n";
        Files.writeString(
                before.get(0),
                filler.repeat(10 * 1024 * 1024 / filler.length() + 10),
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);

        List<Process> others = new ArrayList<>();
        for (int i = 0; i < OTHERS; i++) {
            others.add(JavaProcess.start(
                    LogWriterMain.class,
                    tmp.resolve("p" + i + ".out"),
                    data.toString(),
                    "p" + i,
                    Integer.toString(LINES)));
        }
        for (int i = 0; i < OTHERS; i++) {
            assertThat(others.get(i).waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(others.get(i).exitValue())
                    .as(Files.readString(tmp.resolve("p" + i + ".out")))
                    .isZero();
        }
        Files.createFile(stop);
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String firstOut = Files.readString(tmp.resolve("first.out"));
        int firstLines = Integer.parseInt(firstOut.replaceAll("(?s).*wrote (\\d+).*", "$1"));

        List<Path> after = files(logs);
        assertThat(after).as("rolled over: a second file").hasSizeGreaterThan(1);
        Map<String, boolean[]> seen = new HashMap<>();
        seen.put("first", new boolean[firstLines]);
        for (int i = 0; i < OTHERS; i++) {
            seen.put("p" + i, new boolean[LINES]);
        }
        long total = 0;
        for (Path f : after) {
            total += Files.size(f);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
                    .as(f.toString())
                    .isEqualTo("rw-------");
            try (Stream<String> lines = Files.lines(f)) {
                lines.forEach(l -> {
                    Matcher m = LINE.matcher(l);
                    if (m.find()) {
                        boolean[] s = seen.get(m.group(1));
                        int n = Integer.parseInt(m.group(2));
                        assertThat(s[n]).as("%s line %d twice", m.group(1), n).isFalse();
                        s[n] = true;
                    }
                });
            }
        }
        seen.forEach((name, s) -> {
            for (int n = 0; n < s.length; n++) {
                assertThat(s[n])
                        .as("%s line %d is in no file of %s", name, n, logs)
                        .isTrue();
            }
        });
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logs)))
                .isEqualTo("rwx------");
        assertThat(total).isLessThan(100L * 1024 * 1024);
    }

    private static List<Path> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static void waitFor(Path out, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(out) && Files.readString(out).contains(text))) {
            assertThat(System.nanoTime())
                    .as("waiting for '%s' in %s", text, out)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
