package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Reads and merges the journals of one chaos run. Stateless. */
final class JournalFiles {

    private JournalFiles() {}

    /**
     * Every event of every {@code *.jsonl} file in {@code dir}, in {@code mono} order; agent events get
     * a {@code device} field from their file name ({@code device-a-agent0-0.jsonl},
     * {@code device-u3-agent0-1.jsonl}). A torn last line
     * (the process was killed while writing it) is skipped.
     */
    static List<JsonNode> readAll(Path dir) throws IOException {
        List<JsonNode> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList()) {
                String name = f.getFileName().toString();
                int cut = name.indexOf("-agent");
                String device = name.startsWith("device-") && cut > 0 ? name.substring(0, cut) : null;
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonNode e;
                    try {
                        e = Journal.JSON.readTree(line);
                    } catch (IOException torn) {
                        continue;
                    }
                    if (device != null && e instanceof ObjectNode o) {
                        o.put("device", device);
                    }
                    all.add(e);
                }
            }
        }
        all.sort(Comparator.comparingLong(e -> e.path("mono").asLong()));
        return all;
    }
}
