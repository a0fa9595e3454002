package org.leasesync.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.json.JsonMappers;
import org.leasesync.keyring.TokenVault;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.remote.ServerUrls;

/**
 * The signed-in accounts of a data directory, in {@code <data dir>/accounts.json}: a file of its
 * own, not a section of the window's {@code settings.json}. Both the command line and the window
 * sign in and out, often as separate processes at once, and the window rewrites its settings file
 * whenever it saves a preference or its geometry; one writer per file, each change a locked
 * read-modify-write, means no process can lose another's sign-in. Never a token:
 *
 * <pre>{@code
 * {"accounts": [{"servers": ["https://sync.example.org/"], "user": "alice", "caFile": "/etc/…/ca.pem",
 *                "allowInsecureHttp": false, "token": "keyring", "signedInAt": "2026-11-30T10:00:00Z"}]}
 * }</pre>
 *
 * <p>Written owner-only ({@code 0600}, through {@link OwnerOnlyFiles} like every file of the data
 * directory) to a new file forced to the disk and renamed over the old one, under a lock on
 * {@code accounts.json.lock}. An entry that cannot be read (edited by hand) is skipped when reading
 * and kept when writing. Thread-safe; every method blocks on small file operations.
 */
public final class AccountsFile {

    /** The file's name in the data directory. */
    public static final String NAME = "accounts.json";

    private static final ObjectMapper JSON = JsonMappers.INDENTED;

    private final Path file;

    public AccountsFile(Path dataDir) {
        this.file = Objects.requireNonNull(dataDir, "dataDir").resolve(NAME);
    }

    public Path path() {
        return file;
    }

    /**
     * The accounts, in the order they signed in (the newest last). No file: none.
     *
     * @throws LeasesyncException when the file exists but cannot be read (names it)
     */
    public synchronized List<Account> accounts() {
        if (!Files.exists(file)) {
            return List.of();
        }
        List<Account> out = new ArrayList<>();
        for (JsonNode e : entries(read())) {
            parse(e).ifPresent(out::add);
        }
        return List.copyOf(out);
    }

    /**
     * Adds {@code account}, replacing the one of the same user and first server URL.
     *
     * @throws LeasesyncException when the file cannot be written
     */
    public void put(Account account) {
        update(root -> {
            ArrayNode entries = entries(root);
            remove(entries, account.user(), account.servers());
            entries.add(write(account));
            return root;
        });
    }

    /**
     * Removes the account of {@code user} on {@code servers}' first URL.
     *
     * @throws LeasesyncException when the file cannot be written
     */
    public void remove(String user, ServerUrls servers) {
        if (Files.exists(file)) {
            update(root -> {
                remove(entries(root), user, servers);
                return root;
            });
        }
    }

    private synchronized void update(UnaryOperator<ObjectNode> change) {
        try {
            OwnerOnlyFiles.directory(file.getParent());
            Path lockPath = file.resolveSibling(NAME + ".lock");
            OwnerOnlyFiles.file(lockPath);
            try (FileChannel lockFile = FileChannel.open(lockPath, StandardOpenOption.WRITE)) {
                FileLock lock = lockFile.lock(); // other processes signing in or out wait here
                try {
                    replace(change.apply(Files.exists(file) ? read() : JSON.createObjectNode()));
                } finally {
                    lock.release();
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new LeasesyncException("cannot write the accounts file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@code root} to a new owner-only file, forced to the disk, and renames it over the old one. */
    private void replace(ObjectNode root) throws IOException {
        OwnerOnlyFiles.writeSynced(file, JSON.writeValueAsBytes(root));
    }

    private ObjectNode read() {
        try {
            JsonNode tree = JSON.readTree(file.toFile());
            if (tree instanceof ObjectNode o) {
                return o;
            }
            throw new LeasesyncException(
                    "the accounts file " + file + " is not a JSON object; move it aside and sign in " + "again");
        } catch (IOException e) {
            throw new LeasesyncException(
                    "the accounts file " + file + " cannot be read ("
                            + e.getMessage().lines().findFirst().orElse("") + "); move it aside and sign in again",
                    e);
        }
    }

    private static ArrayNode entries(ObjectNode root) {
        JsonNode a = root.get("accounts");
        return a instanceof ArrayNode arr ? arr : root.putArray("accounts");
    }

    private static void remove(ArrayNode entries, String user, ServerUrls servers) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            Optional<Account> a = parse(entries.get(i));
            if (a.isPresent() && a.get().isOf(user, servers)) {
                entries.remove(i);
            }
        }
    }

    private static ObjectNode write(Account a) {
        ObjectNode o = JSON.createObjectNode();
        ArrayNode urls = o.putArray("servers");
        a.servers().urls().forEach(u -> urls.add(u.toString()));
        o.put("user", a.user());
        a.caFile().ifPresent(f -> o.put("caFile", f.toString()));
        o.put("allowInsecureHttp", a.allowInsecureHttp());
        o.put("token", a.tokenPlace().wireName());
        o.put("signedInAt", a.signedInAt().toString());
        return o;
    }

    private static Optional<Account> parse(JsonNode e) {
        try {
            List<String> urls = new ArrayList<>();
            e.path("servers").forEach(u -> urls.add(u.asText()));
            return Optional.of(new Account(
                    ServerUrls.parse(String.join(",", urls)),
                    e.path("user").asText(null),
                    e.hasNonNull("caFile") ? Optional.of(Path.of(e.get("caFile").asText())) : Optional.empty(),
                    e.path("allowInsecureHttp").asBoolean(false),
                    TokenVault.Place.parse(e.path("token").asText("")),
                    Instant.parse(e.path("signedInAt").asText(""))));
        } catch (RuntimeException bad) {
            return Optional.empty();
        }
    }
}
