package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;

/**
 * Which process serves a shared local database (the host of H2's automatic mixed mode), for
 * messages: the port comes from the lock file ({@code leasesync.lock.db}), the process from the
 * Linux {@code /proc} tables (the process listening on that port on loopback). Best effort: empty
 * when anything is missing or unreadable (another OS, another user's process).
 *
 * <p>Stateless and thread-safe. Reads files only.
 */
final class DatabaseHost {

    private DatabaseHost() {}

    /** The pid of the process serving the database whose lock file is {@code lockFile}, if known. */
    static Optional<Long> pid(Path lockFile) {
        try {
            Optional<Integer> port = port(lockFile);
            if (port.isEmpty()) {
                return Optional.empty();
            }
            Optional<String> inode = listeningSocketInode(port.get());
            return inode.isEmpty() ? Optional.empty() : processWithSocket(inode.get());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether the process {@code pid} is the one serving the database whose lock file is
     * {@code lockFile}: it has a socket listening on the port the lock file names. Reads only that
     * process's descriptors. False when anything is missing or unreadable.
     */
    static boolean servedBy(Path lockFile, long pid) {
        try {
            Optional<Integer> port = port(lockFile);
            if (port.isEmpty()) {
                return false;
            }
            Optional<String> inode = listeningSocketInode(port.get());
            return inode.isPresent() && hasSocket(Path.of("/proc", Long.toString(pid)), "socket:[" + inode.get() + "]");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean hasSocket(Path proc, String target) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    if (target.equals(Files.readSymbolicLink(fd).toString())) {
                        return true;
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException | SecurityException e) {
            // another user's process, or gone
        }
        return false;
    }

    /** The loopback port written in H2's lock file ({@code server=localhost:PORT}). */
    static Optional<Integer> port(Path lockFile) throws IOException {
        if (!Files.isRegularFile(lockFile)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(lockFile)) {
            p.load(in);
        }
        String server = p.getProperty("server");
        if (server == null || server.lastIndexOf(':') < 0) {
            return Optional.empty();
        }
        return Optional.of(
                Integer.parseInt(server.substring(server.lastIndexOf(':') + 1).trim()));
    }

    private static Optional<String> listeningSocketInode(int port) throws IOException {
        String hexPort = String.format(Locale.ROOT, "%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path t = Path.of(table);
            if (!Files.isReadable(t)) {
                continue;
            }
            for (String line : Files.readAllLines(t)) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                if (f.length > 9 && f[1].endsWith(":" + hexPort) && "0A".equals(f[3])) { // 0A = LISTEN
                    return Optional.of(f[9]);
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Long> processWithSocket(String inode) throws IOException {
        String target = "socket:[" + inode + "]";
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path proc : procs) {
                if (hasSocket(proc, target)) {
                    return Optional.of(Long.parseLong(proc.getFileName().toString()));
                }
            }
        }
        return Optional.empty();
    }
}
