package org.leasesync.desktop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.json.JsonMappers;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.TimeSource;

/**
 * {@link UserSettings} in {@code <data dir>/settings.json}: pretty-printed JSON a person can
 * read and edit, written atomically (temporary file, then rename) and owner-only. Keys this
 * version does not know are kept as they are when it writes the file, so a newer version's
 * settings survive a run of an older one.
 *
 * <pre>{@code
 * {
 *   "notifications" : true,
 *   "startAtLogin" : false,
 *   "pause" : { "until" : "2026-11-30T15:00:00Z" },   // or { "untilResumed" : true }, or null
 *   "noTrayNoticeShown" : false,
 *   "scheduleInterval" : "5m",                           // the settings dialog's start options,
 *   "foregroundMinInterval" : "1m",                      // each absent when not set
 *   "language" : "zh-CN",                                // "en", "zh-CN"; absent: the system's
 *   "window" : { "x" : 120.0, "y" : 80.0, "width" : 1180.0, "height" : 780.0, "maximized" : false }
 * }
 * }</pre>
 *
 * <p>Never a token. An older version's dialog kept a server with its account's token here, in clear:
 * {@code "server" : { "urls" : [ … ], "user" : "bob", "token" : "…" }}. {@link #legacyServer} reads such
 * an entry so that the window moves its token to where signed-in accounts keep theirs, and
 * {@link #dropLegacyServer} then removes it, every other key kept ({@link LegacyServerMove}).
 *
 * <p>{@code "window"} is the main window's last size and position ({@link #windowGeometry()}); a
 * malformed one is ignored (the window opens at its default size) and replaced on the next save.
 *
 * <p>A file that cannot be read — not JSON, or a value of the wrong type — is never overwritten:
 * it is moved aside to {@code settings.json.unreadable-<UTC time>}, the defaults are used, and
 * {@link #load()} says so (nothing the user wrote is lost).
 *
 * <p>Thread-safe; every method blocks on a small file read or write.
 */
public final class SettingsFile {

    /** The file's name in the data directory. */
    public static final String NAME = "settings.json";

    private static final ObjectMapper JSON = JsonMappers.INDENTED;
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final Path file;
    private final TimeSource time;
    private ObjectNode raw = JsonNodeFactory.instance.objectNode();
    private UserSettings current = UserSettings.DEFAULTS;

    /** @param time stamps the name of an unreadable file moved aside */
    public SettingsFile(Path dataDir, TimeSource time) {
        this.file = Objects.requireNonNull(dataDir, "dataDir").resolve(NAME);
        this.time = Objects.requireNonNull(time, "time");
    }

    /**
     * What {@link #load()} found.
     *
     * @param settings the settings in force (the defaults when there was no file or it was unreadable)
     * @param problem for an unreadable file: what was wrong and where the file was moved
     */
    public record Loaded(UserSettings settings, Optional<Problem> problem) {}

    /**
     * An unreadable settings file.
     *
     * @param reason what was wrong, naming the key or the line
     * @param keptAs where the file was moved
     */
    public record Problem(String reason, Path keptAs) {}

    public Path path() {
        return file;
    }

    /** Reads the file (no file: the defaults). An unreadable one is moved aside, see the class comment. */
    public synchronized Loaded load() {
        if (!Files.exists(file)) {
            raw = JsonNodeFactory.instance.objectNode();
            current = UserSettings.DEFAULTS;
            return new Loaded(current, Optional.empty());
        }
        try {
            JsonNode tree = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
            if (tree == null || !tree.isObject()) {
                throw new SettingsJson.Unreadable("it is not a JSON object");
            }
            UserSettings s = SettingsJson.parse((ObjectNode) tree);
            raw = (ObjectNode) tree;
            current = s;
            return new Loaded(s, Optional.empty());
        } catch (IOException | SettingsJson.Unreadable e) {
            String reason = e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                    ? "not valid JSON at line " + lineOf(j) + ": " + j.getOriginalMessage()
                    : e.getMessage();
            Path aside = file.resolveSibling(NAME + ".unreadable-" + STAMP.format(time.now()));
            try {
                Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException moveFailed) {
                throw new LeasesyncException(
                        "the settings file " + file + " cannot be read (" + reason + ") nor moved aside: "
                                + moveFailed.getMessage(),
                        moveFailed);
            }
            try {
                OwnerOnlyFiles.tighten(aside); // kept for the user, as private as the settings it may hold
            } catch (IOException tightenFailed) {
                org.slf4j.LoggerFactory.getLogger(SettingsFile.class)
                        .warn("could not make {} owner-only: {}", aside, tightenFailed.getMessage());
            }
            raw = JsonNodeFactory.instance.objectNode();
            current = UserSettings.DEFAULTS;
            return new Loaded(current, Optional.of(new Problem(reason, aside)));
        }
    }

    /** The settings in force (after {@link #load()} or the last {@link #update}). */
    public synchronized UserSettings current() {
        return current;
    }

    /**
     * Applies {@code change} and writes the file.
     *
     * @return the new settings
     * @throws LeasesyncException if the file cannot be written (the settings in memory stay as before)
     */
    public synchronized UserSettings update(UnaryOperator<UserSettings> change) {
        UserSettings next = Objects.requireNonNull(change.apply(current), "changed settings");
        ObjectNode tree = raw.deepCopy();
        SettingsJson.write(tree, next);
        try {
            OwnerOnlyFiles.directory(file.getParent());
            OwnerOnlyFiles.writeString(file, JSON.writeValueAsString(tree) + "\n");
        } catch (IOException e) {
            throw new LeasesyncException("could not write " + file + ": " + e.getMessage(), e);
        }
        raw = tree;
        current = next;
        return next;
    }

    /**
     * The main window's last size and position; empty when none was saved or the saved one is
     * malformed (logged).
     */
    public synchronized Optional<WindowGeometry> windowGeometry() {
        return geometryOf(raw, file);
    }

    /**
     * The main window's last size and position as the file in {@code dataDir} has it now, read
     * without loading it (nothing is moved aside or written), for placing the window before the
     * settings are loaded.
     *
     * @return empty when there is no file, it is unreadable, or it holds no (well-formed) geometry
     */
    public static Optional<WindowGeometry> peekWindowGeometry(Path dataDir) {
        Path f = dataDir.resolve(NAME);
        try {
            if (!Files.isRegularFile(f)) {
                return Optional.empty();
            }
            JsonNode tree = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
            return tree != null && tree.isObject() ? geometryOf(tree, f) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<WindowGeometry> geometryOf(JsonNode raw, Path file) {
        JsonNode w = raw.get(WINDOW);
        if (w == null || w.isNull()) {
            return Optional.empty();
        }
        try {
            if (!w.isObject()
                    || !w.path("x").isNumber()
                    || !w.path("y").isNumber()
                    || !w.path("width").isNumber()
                    || !w.path("height").isNumber()
                    || !w.path("maximized").isBoolean()) {
                throw new IllegalArgumentException(
                        "needs numbers x, y, width, height and true/false maximized, got " + w);
            }
            return Optional.of(new WindowGeometry(
                    w.get("x").doubleValue(),
                    w.get("y").doubleValue(),
                    w.get("width").doubleValue(),
                    w.get("height").doubleValue(),
                    w.get("maximized").booleanValue()));
        } catch (IllegalArgumentException e) {
            org.slf4j.LoggerFactory.getLogger(SettingsFile.class)
                    .warn("ignoring \"{}\" in {}: {}", WINDOW, file, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Saves the main window's size and position, keeping every other key.
     *
     * @throws LeasesyncException if the file cannot be written
     */
    public synchronized void saveWindowGeometry(WindowGeometry g) {
        Objects.requireNonNull(g, "geometry");
        ObjectNode w = JsonNodeFactory.instance.objectNode();
        w.put("x", g.x());
        w.put("y", g.y());
        w.put("width", g.width());
        w.put("height", g.height());
        w.put("maximized", g.maximized());
        ObjectNode before = raw;
        raw = raw.deepCopy();
        raw.set(WINDOW, w);
        try {
            update(UnaryOperator.identity());
        } catch (LeasesyncException e) {
            raw = before;
            throw e;
        }
    }

    private static final String WINDOW = "window";
    private static final String LEGACY_SERVER = "server";

    /**
     * The server entry an older version's settings dialog wrote, with its token in clear.
     *
     * @param urls the URL(s) as written
     * @param user the user as written, if any
     * @param token the token as written, if any
     */
    public record LegacyServer(List<String> urls, Optional<String> user, Optional<String> token) {
        public LegacyServer {
            urls = List.copyOf(urls);
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(token, "token");
        }

        /** Never the token. */
        @Override
        public String toString() {
            return "LegacyServer[" + urls + ", user=" + user.orElse("none") + ", token="
                    + token.map(t -> "(hidden)").orElse("none") + "]";
        }
    }

    /**
     * The {@code "server"} entry of {@code settings.json}, when the file is readable and has one. Reads
     * only; a file that cannot be read answers empty (the window's {@link #load()} reports it).
     */
    public static Optional<LegacyServer> legacyServer(Path dataDir) {
        return readTree(dataDir.resolve(NAME))
                .map(t -> t.get(LEGACY_SERVER))
                .filter(n -> n != null && !n.isNull())
                .map(n -> {
                    List<String> urls = new java.util.ArrayList<>();
                    n.path("urls").forEach(u -> urls.add(u.asText()));
                    return new LegacyServer(urls, text(n, "user"), text(n, "token"));
                });
    }

    /**
     * Removes the {@code "server"} entry from {@code settings.json}, keeping every other key as it is
     * (written atomically, owner-only). Does nothing when the file cannot be read or has none.
     *
     * @throws LeasesyncException if the file cannot be written
     */
    public static void dropLegacyServer(Path dataDir) {
        Path f = dataDir.resolve(NAME);
        Optional<ObjectNode> tree = readTree(f);
        if (tree.isEmpty() || !tree.get().has(LEGACY_SERVER)) {
            return;
        }
        tree.get().remove(LEGACY_SERVER);
        try {
            OwnerOnlyFiles.writeString(f, JSON.writeValueAsString(tree.get()) + "\n");
        } catch (IOException e) {
            throw new LeasesyncException("could not write " + f + ": " + e.getMessage(), e);
        }
    }

    private static Optional<ObjectNode> readTree(Path f) {
        try {
            if (!Files.isRegularFile(f)) {
                return Optional.empty();
            }
            JsonNode tree = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
            return tree != null && tree.isObject() ? Optional.of((ObjectNode) tree) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() || !v.isTextual() || v.asText().isBlank()
                ? Optional.empty()
                : Optional.of(v.asText());
    }

    /**
     * Reads the settings without changing anything: empty when there is no file or it cannot be
     * read (the window's own {@link #load()} then reports and moves it). Used before the start.
     */
    public static Optional<UserSettings> peek(Path dataDir) {
        Path f = dataDir.resolve(NAME);
        try {
            if (!Files.isRegularFile(f)) {
                return Optional.empty();
            }
            JsonNode tree = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
            return tree != null && tree.isObject()
                    ? Optional.of(SettingsJson.parse((ObjectNode) tree))
                    : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static int lineOf(com.fasterxml.jackson.core.JsonProcessingException e) {
        return e.getLocation() == null ? 0 : e.getLocation().getLineNr();
    }
}
