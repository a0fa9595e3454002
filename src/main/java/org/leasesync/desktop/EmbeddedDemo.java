package org.leasesync.desktop;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.json.JsonMappers;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.remote.ServerUrls;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded reference server with demo data, the window's first-run default: kept in
 * {@code <data dir>/embedded-server} so the demo survives restarts. A second app process on the same
 * data directory finds the first one's server through {@code embedded-server.json} and uses it. It
 * is started when the window first needs it — at start without an account, or when the last
 * signed-in account signs out.
 *
 * <p>Thread-safe. {@link #start()} blocks (starts a server, or reads the other process's file);
 * {@link #close()} stops the server this process started.
 */
public final class EmbeddedDemo implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedDemo.class);
    private static final ObjectMapper JSON = JsonMappers.PLAIN;

    private final Path dataDir;
    private ReferenceServer server;
    private Started started;
    private boolean closed;

    /**
     * Where the demo runs and its users' tokens.
     *
     * @param url the server's URL
     * @param tokens a session token per demo user, in the order the demo lists them (alice, bob)
     */
    public record Started(ServerUrls url, Map<String, String> tokens) {
        public Started {
            Objects.requireNonNull(url, "url");
            tokens = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tokens));
        }

        /** Never the tokens. */
        @Override
        public String toString() {
            return "Started[" + url + ", users " + tokens.keySet() + "]";
        }
    }

    public EmbeddedDemo(Path dataDir) {
        this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
    }

    /**
     * Starts the demo server (once; later calls answer the same), or finds the one another process on
     * this data directory runs.
     *
     * @throws LeasesyncException or RuntimeException when neither works
     */
    public synchronized Started start() {
        if (closed) {
            throw new IllegalStateException("the embedded demo server was closed");
        }
        if (started != null) {
            return started;
        }
        Path serverDir = dataDir.resolve("embedded-server");
        Path info = dataDir.resolve("embedded-server.json");
        Map<String, String> tokens = new LinkedHashMap<>();
        try {
            privateServerDirectory(serverDir);
            server = ReferenceServer.start(serverConfig(serverDir));
            tightenServerFiles(serverDir);
            for (String u : ReferenceServer.demoUsers()) {
                tokens.put(u, server.tokenFor(u));
            }
            writeInfo(info, server.baseUrl(), tokens);
            started = new Started(ServerUrls.single(server.baseUrl()), tokens);
        } catch (RuntimeException e) {
            if (server != null) {
                server.close();
                server = null;
            }
            Optional<Map<String, Object>> other = readInfo(info);
            if (other.isEmpty()) {
                throw e;
            }
            log.info(
                    "the embedded server is run by another leasesync process; using it: {}",
                    other.get().get("url"));
            @SuppressWarnings("unchecked")
            Map<String, String> t = (Map<String, String>) other.get().get("tokens");
            tokens.putAll(t);
            started = new Started(ServerUrls.single((String) other.get().get("url")), tokens);
        }
        return started;
    }

    /** The server, when this process started it (QA fault switches and stats). */
    public synchronized Optional<ReferenceServer> server() {
        return Optional.ofNullable(server);
    }

    /** Whether {@code servers} is where the demo runs (started here or by another process). */
    public synchronized boolean isAt(ServerUrls servers) {
        return started != null && started.url().equals(servers);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /**
     * The embedded server's directory, owner-only before the server writes there: it holds the demo
     * accounts' tokens and records. (The server's own H2 creates its files with the umask; inside
     * a 0700 directory no other account can open them, and {@link #tightenServerFiles} makes them
     * 0600 too.)
     */
    private static void privateServerDirectory(Path serverDir) {
        try {
            OwnerOnlyFiles.directory(serverDir);
        } catch (IOException e) {
            throw new LeasesyncException(
                    "cannot make the embedded server's directory " + serverDir + " owner-only: " + e.getMessage()
                            + ". Choose another data directory with --data-dir or LEASESYNC_DATA_DIR.",
                    e);
        }
    }

    /** After the embedded server opened its files: makes them owner-only (best effort, logged). */
    private static void tightenServerFiles(Path serverDir) {
        try {
            OwnerOnlyFiles.tightenTree(serverDir);
        } catch (IOException e) {
            log.warn("could not make the embedded server's files in {} owner-only: {}", serverDir, e.getMessage());
        }
    }

    /** Written atomically, owner-only: it holds the demo accounts' tokens. */
    private static void writeInfo(Path info, String url, Map<String, String> tokens) {
        try {
            OwnerOnlyFiles.writeString(info, JSON.writeValueAsString(Map.of("url", url, "tokens", tokens)));
        } catch (IOException e) {
            log.warn("could not write {}: {}", info, e.toString());
        }
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> readInfo(Path info) {
        try {
            return Files.exists(info) ? Optional.of(JSON.readValue(info.toFile(), Map.class)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The embedded server's settings: the demo accounts on an H2 file in {@code serverDir}, and the job
     * that deletes stale idempotency-key claims hourly instead of every minute. That job is for the
     * instances of a cluster that crash holding claims; this server is the only one on its file, deletes
     * every claim when it starts and retries a failed release itself, and the job's run a minute was
     * most of what it cost the app idling in the tray (docs/benchmarks.md).
     */
    static ServerConfig serverConfig(Path serverDir) {
        return ServerConfig.defaults()
                .withDataDir(serverDir)
                .withSeed(org.leasesync.server.demo.Seed.DEMO)
                .withJobs(org.leasesync.server.jobs.JobSettings.defaults()
                        .withInterval(org.leasesync.server.jobs.StandardJobs.RELEASE_STALE_CLAIMS, STALE_CLAIMS));
    }

    /** How often the embedded server deletes stale claims ({@link #serverConfig}). */
    static final java.time.Duration STALE_CLAIMS = java.time.Duration.ofHours(1);
}
