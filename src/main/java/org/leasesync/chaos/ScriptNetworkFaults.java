package org.leasesync.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link NetworkFaults} by running the fault functions of {@code scale/net.sh}
 * ({@code bash net.sh db-cut K on}, {@code client-cut K off}, {@code link K down},
 * {@code db-link up}, {@code loss K 20}, {@code host-lost K}, {@code host-back K}, {@code heal-all}). Each call waits up to 20 s for the
 * script. Thread-safe (each call is its own process).
 */
final class ScriptNetworkFaults implements NetworkFaults {

    private static final long TIMEOUT_SECONDS = 20;

    private final Path script;

    /** @param script the {@code net.sh} to run with {@code bash} */
    ScriptNetworkFaults(Path script) {
        this.script = script;
    }

    @Override
    public String set(Kind kind, int instance, int lossPercent, boolean on) throws IOException {
        String k = String.valueOf(instance);
        return switch (kind) {
            case DB_CUT -> run("db-cut", k, on ? "on" : "off");
            case CLIENT_CUT -> run("client-cut", k, on ? "on" : "off");
            case LINK_DOWN -> run("link", k, on ? "down" : "up");
            case DB_LINK_DOWN -> run("db-link", on ? "down" : "up");
            case LOSS -> run("loss", k, on ? String.valueOf(lossPercent) : "off");
            case HOST_LOST -> run(on ? "host-lost" : "host-back", k);
        };
    }

    @Override
    public void healAll() throws IOException {
        run("heal-all");
    }

    /** Runs one function; returns its standard output (trimmed), or the function's name if it printed nothing. */
    private String run(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", cmd), e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed with exit code " + p.exitValue()
                    + (out.isEmpty() ? "" : ": " + out));
        }
        return out.isEmpty() ? args[0] : out;
    }
}
