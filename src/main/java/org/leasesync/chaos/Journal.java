package org.leasesync.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.leasesync.json.JsonMappers;

/**
 * One process's part of the chaos history: a JSON-lines file, one event per line, each stamped with
 * {@code mono} = {@link System#nanoTime()} (on Linux {@code CLOCK_MONOTONIC}, one clock for every
 * process on the machine, unaffected by wall-clock jumps) and the process id.
 *
 * <p>Each line is written with one unbuffered {@code write} call, so a {@code kill -9} loses at most
 * the event being written, never an earlier one. Thread-safe; blocks on the file.
 */
final class Journal implements AutoCloseable {

    static final ObjectMapper JSON = JsonMappers.PLAIN;

    private final FileOutputStream out;
    private final long pid = ProcessHandle.current().pid();

    Journal(Path file) {
        try {
            this.out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open chaos journal " + file, e);
        }
    }

    /** A new event of the given type, stamped now; add fields, then {@link #write}. */
    ObjectNode event(String type) {
        ObjectNode n = JSON.createObjectNode();
        n.put("mono", System.nanoTime());
        n.put("pid", pid);
        n.put("type", type);
        return n;
    }

    /** Appends the event as one line. */
    synchronized void write(ObjectNode event) {
        try {
            out.write((JSON.writeValueAsString(event) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write chaos journal", e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            // nothing left to lose
        }
    }
}
