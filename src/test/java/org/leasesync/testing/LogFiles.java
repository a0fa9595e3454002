package org.leasesync.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The log lines of a data directory: every file in its {@code logs/} folder (a file per day and
 * per 10 MB, shared by its processes), oldest name first, as one text. Empty when there are none.
 */
public final class LogFiles {

    private LogFiles() {}

    /** @throws UncheckedIOException if a file cannot be read */
    public static String read(Path dataDir) {
        StringBuilder all = new StringBuilder();
        for (Path f : list(dataDir)) {
            try {
                all.append(Files.readString(f, StandardCharsets.UTF_8));
            } catch (NoSuchFileException e) {
                // removed by the size cap meanwhile
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all.toString();
    }

    /** The log files of {@code dataDir}, sorted by name. */
    public static List<Path> list(Path dataDir) {
        Path logs = dataDir.resolve("logs");
        if (!Files.isDirectory(logs)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(logs)) {
            return s.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
