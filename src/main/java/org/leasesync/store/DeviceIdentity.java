package org.leasesync.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Which device a data directory is: its client id (the {@code Client-Id} of every fenced request,
 * the name of its fencing-token sequence at the sync server, docs/protocol.md §6), bound to the
 * place the directory is in.
 *
 * <p>The rule (docs/architecture.md "A device's identity"): the client id row records the machine's
 * id and the data directory's file key (device and inode on Linux). On open:
 * <ol>
 *   <li>no row yet: a random id is created, bound here;</li>
 *   <li>a row without a binding (written before bindings existed): bound here, id unchanged;</li>
 *   <li>same machine and same file key: the same directory — also when its path changed (a move or
 *       rename keeps the inode; a directory cannot be hard-linked, so on one machine no other
 *       directory has that key at the same time): id unchanged, the new path recorded;</li>
 *   <li>otherwise the directory is a copy (cp, rsync, a backup restored, another machine): a new
 *       random id is minted and bound here, the old one kept as {@code previous_client_id}. Nothing
 *       else changes — the outbox, records, runs and lease rows stay — so the copy's unsent edits
 *       are pushed under its own fencing sequence. A move to another file system also lands here;
 *       it costs a new sequence at the server, nothing else.</li>
 * </ol>
 * The decision is taken with the row locked ({@code SELECT ... FOR UPDATE}), so two processes
 * opening a copy at once mint one id between them.
 *
 * <p>Stateless; thread-safe. {@link #bind} blocks on the database and reads a few small files.
 */
public final class DeviceIdentity {

    /** Where the machine's id is read from, first found wins (systemd, then D-Bus). */
    static final List<Path> MACHINE_ID_FILES = List.of(Path.of("/etc/machine-id"), Path.of("/var/lib/dbus/machine-id"));

    /**
     * What a directory is bound to.
     *
     * @param machineId the machine's id, or the host name where no machine id file exists
     * @param dirKey the directory's file key as text, or empty where the file system has none
     * @param dirPath the directory's real path (display only)
     */
    public record Place(String machineId, String dirKey, String dirPath) {

        public Place {
            Objects.requireNonNull(machineId, "machineId");
            Objects.requireNonNull(dirKey, "dirKey");
            Objects.requireNonNull(dirPath, "dirPath");
        }

        /**
         * Where {@code dataDir} is now.
         *
         * @throws java.io.UncheckedIOException if the directory's attributes cannot be read
         */
        public static Place of(Path dataDir) {
            try {
                Path real = dataDir.toRealPath();
                Object key =
                        Files.readAttributes(real, BasicFileAttributes.class).fileKey();
                return new Place(DeviceIdentity.machineId(), key == null ? "" : key.toString(), real.toString());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(
                        "cannot read the data directory " + dataDir + ": " + e.getMessage(), e);
            }
        }

        /** Same directory: same machine, and the same non-empty file key (or, without keys, the same path). */
        boolean sameDirectoryAs(Place other) {
            if (!machineId.equals(other.machineId)) {
                return false;
            }
            return dirKey.isEmpty() || other.dirKey.isEmpty()
                    ? dirPath.equals(other.dirPath)
                    : dirKey.equals(other.dirKey);
        }
    }

    /**
     * The client id after binding.
     *
     * @param clientId the id to send as {@code Client-Id}
     * @param copiedFrom the id of the directory this one was found to be a copy of, when this open
     *     noticed the copy and minted {@code clientId}; empty otherwise
     */
    public record Bound(String clientId, Optional<String> copiedFrom) {

        public Bound {
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(copiedFrom, "copiedFrom");
        }
    }

    private DeviceIdentity() {}

    /**
     * Binds the client id of {@code db} to {@code here} by the rule above.
     *
     * @throws org.leasesync.lease.StoreException if the database fails
     */
    public static Bound bind(SqlDatabase db, Place here) {
        // A process opening the shared file while another one hands H2's server over sees its
        // connection break; the decision is taken again from the row (it commits nothing half-way).
        for (int attempt = 1; ; attempt++) {
            try {
                return bindOnce(db, here);
            } catch (org.leasesync.lease.StoreException e) {
                if (attempt >= HANDOVER_ATTEMPTS || !org.leasesync.store.h2.H2Messages.isHandover(e.getMessage())) {
                    throw e;
                }
                try {
                    Thread.sleep(200L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** How often a bind is tried when the shared file's host process goes away meanwhile. */
    static final int HANDOVER_ATTEMPTS = 6;

    private static Bound bindOnce(SqlDatabase db, Place here) {
        return db.transaction("bind the client id to " + here.dirPath(), c -> {
            Optional<Row> row = lockRow(c);
            if (row.isEmpty()) {
                String id = UUID.randomUUID().toString();
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO client_identity (id, client_id, machine_id,"
                        + " dir_key, dir_path) VALUES (1, ?, ?, ?, ?)")) {
                    ps.setString(1, id);
                    setPlace(ps, 2, here);
                    db.dialect().recoverably(c, x -> ps.executeUpdate());
                } catch (SQLException e) {
                    if (!db.dialect().isDuplicateKey(e)) {
                        throw e;
                    }
                    return bindExisting(c, lockRow(c).orElseThrow(), here); // another process created it first
                }
                return new Bound(id, Optional.empty());
            }
            return bindExisting(c, row.get(), here);
        });
    }

    private static Bound bindExisting(Connection c, Row row, Place here) throws SQLException {
        if (row.place().isPresent() && !row.place().get().sameDirectoryAs(here)) {
            String id = UUID.randomUUID().toString();
            try (PreparedStatement ps = c.prepareStatement("UPDATE client_identity SET client_id = ?, machine_id = ?,"
                    + " dir_key = ?, dir_path = ?, previous_client_id = ? WHERE id = 1")) {
                ps.setString(1, id);
                setPlace(ps, 2, here);
                ps.setString(5, row.clientId());
                ps.executeUpdate();
            }
            return new Bound(id, Optional.of(row.clientId()));
        }
        if (row.place().isEmpty() || !row.place().get().equals(here)) {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE client_identity SET machine_id = ?, dir_key = ?, dir_path = ? WHERE id = 1")) {
                setPlace(ps, 1, here);
                ps.executeUpdate();
            }
        }
        return new Bound(row.clientId(), Optional.empty());
    }

    private record Row(String clientId, Optional<Place> place) {}

    private static Optional<Row> lockRow(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                        "SELECT client_id, machine_id, dir_key, dir_path FROM client_identity WHERE id = 1 FOR UPDATE");
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            String machine = rs.getString(2);
            Optional<Place> place = machine == null
                    ? Optional.empty()
                    : Optional.of(new Place(
                            machine, Objects.toString(rs.getString(3), ""), Objects.toString(rs.getString(4), "")));
            return Optional.of(new Row(rs.getString(1), place));
        }
    }

    private static void setPlace(PreparedStatement ps, int from, Place p) throws SQLException {
        ps.setString(from, p.machineId());
        ps.setString(from + 1, p.dirKey());
        ps.setString(from + 2, p.dirPath());
    }

    /**
     * The machine's id. A copied disk image carries it too, but together with the directory's inode
     * it still tells a copy from the original; it keeps two machines whose directories happen to
     * have the same device and inode numbers (identical provisioning) apart.
     */
    static String machineId() {
        for (Path f : MACHINE_ID_FILES) {
            try {
                String id = Files.readString(f).trim();
                if (!id.isEmpty()) {
                    return id;
                }
            } catch (IOException | SecurityException ignored) {
                // try the next place, then the host name
            }
        }
        try {
            return "host:" + java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "host:unknown";
        }
    }
}
