package org.leasesync.keyring;

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
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.json.JsonMappers;

/**
 * Tokens in an owner-only file, where no Secret Service answers (no session bus, no keyring
 * daemon), as git's credential store does: {@code <data dir>/credentials/tokens.json}, the folder
 * {@code 0700} and the file {@code 0600}, so only this user (and root) can read it. The token is
 * not encrypted: there is no key to encrypt it with that would not sit beside it.
 *
 * <pre>{@code
 * {"tokens": [{"server": "https://sync.example.org/", "user": "alice", "token": "…"}]}
 * }</pre>
 *
 * <p>Every change is a read-modify-write under a lock on {@code credentials/tokens.lock} (several
 * leasesync processes may sign in at once), written to a new owner-only file, forced to the disk and
 * renamed over the old one, so the file is whole at every moment. A folder or file whose permissions
 * were widened is narrowed again before it is used, one of another account refused — all through
 * {@link OwnerOnlyFiles}, as every other file of the data directory. Thread-safe; every method blocks on small file operations.
 */
public final class TokenFile implements TokenVault {

    /** The folder in the data directory. */
    public static final String FOLDER = "credentials";
    /** The file's name in it. */
    public static final String NAME = "tokens.json";

    private static final ObjectMapper JSON = JsonMappers.INDENTED;

    private final Path dir;
    private final Path file;

    /** @param dataDir the data directory; nothing is created until a token is stored */
    public TokenFile(Path dataDir) {
        this.dir = Objects.requireNonNull(dataDir, "dataDir").resolve(FOLDER);
        this.file = dir.resolve(NAME);
    }

    /** The file. */
    public Path path() {
        return file;
    }

    @Override
    public String description() {
        return "the owner-only file " + file;
    }

    @Override
    public Place place() {
        return Place.FILE;
    }

    @Override
    public void store(TokenSlot slot, String token) {
        update("store the token of " + slot, root -> {
            ArrayNode tokens = tokens(root);
            removeFrom(tokens, slot);
            ObjectNode entry = tokens.addObject();
            entry.put("server", slot.server());
            entry.put("user", slot.user());
            entry.put("token", token);
            return true;
        });
    }

    @Override
    public Optional<String> find(TokenSlot slot) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        synchronized (this) {
            try {
                narrow();
                for (JsonNode e : tokens(read())) {
                    if (matches(e, slot) && e.path("token").isTextual()) {
                        return Optional.of(e.get("token").asText());
                    }
                }
                return Optional.empty();
            } catch (IOException e) {
                throw new KeyringException("cannot read the token file " + file + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public boolean remove(TokenSlot slot) {
        if (!Files.exists(file)) {
            return false;
        }
        return update("remove the token of " + slot, root -> removeFrom(tokens(root), slot));
    }

    @Override
    public void close() {
        // nothing held between calls
    }

    private synchronized boolean update(String what, Function<ObjectNode, Boolean> change) {
        try {
            OwnerOnlyFiles.directory(dir); // also when it was made wider by hand
            Path lockPath = dir.resolve("tokens.lock");
            OwnerOnlyFiles.file(lockPath);
            try (FileChannel lockFile = FileChannel.open(lockPath, StandardOpenOption.WRITE)) {
                FileLock lock = lockFile.lock(); // other processes signing in or out wait here
                try {
                    ObjectNode root = Files.exists(file) ? read() : JSON.createObjectNode();
                    boolean changed = change.apply(root);
                    if (changed) {
                        write(root);
                    }
                    return changed;
                } finally {
                    lock.release();
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new KeyringException("cannot " + what + " in " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A file made readable by others (by hand, a copy) is narrowed before its token is used again; one
     * of another account is not read at all ({@link org.leasesync.files.NotYoursException}).
     */
    private void narrow() throws IOException {
        OwnerOnlyFiles.tighten(file);
    }

    private ObjectNode read() throws IOException {
        JsonNode tree = JSON.readTree(file.toFile());
        if (tree == null || !tree.isObject()) {
            throw new IOException("it is not a JSON object");
        }
        return (ObjectNode) tree;
    }

    private void write(ObjectNode root) throws IOException {
        OwnerOnlyFiles.writeSynced(file, JSON.writeValueAsBytes(root));
    }

    private static ArrayNode tokens(ObjectNode root) {
        JsonNode t = root.get("tokens");
        if (t instanceof ArrayNode a) {
            return a;
        }
        return root.putArray("tokens");
    }

    private static boolean removeFrom(ArrayNode tokens, TokenSlot slot) {
        boolean removed = false;
        for (Iterator<JsonNode> it = tokens.elements(); it.hasNext(); ) {
            if (matches(it.next(), slot)) {
                it.remove();
                removed = true;
            }
        }
        return removed;
    }

    private static boolean matches(JsonNode e, TokenSlot slot) {
        return slot.server().equals(e.path("server").asText(null))
                && slot.user().equals(e.path("user").asText(null));
    }
}
