package org.leasesync.desktop;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.LeasesyncException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One window per data directory. The first launch holds a lock on {@code window.lock} in the data
 * directory for as long as it runs and listens on the Unix-domain socket {@code window.sock} beside
 * it (0600, in the 0700 data directory: only this account can connect). A later launch that finds
 * the lock held connects to the socket, asks the running window to show itself ({@code show}),
 * waits for its {@code shown} and exits, so one data directory never has two windows, two tray
 * icons and every notification twice.
 *
 * <p>Why a lock beside the socket: a socket file outlives a process killed with SIGKILL, and
 * "nobody answers on it" cannot tell a dead owner from one that is still binding. The kernel drops
 * a process's {@code fcntl} lock when it dies, so whoever gets the lock knows any socket file left
 * is stale, removes it and binds its own; two launches racing get the lock one at a time.
 *
 * <p>Only the window uses this; the command line's commands ({@code sync}, {@code status},
 * {@code serve}, …) never look at it. Thread-safe. The listener runs on a daemon thread
 * {@code window-instance}; {@link #close()} stops it and removes the socket file.
 */
public final class SingleInstance implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SingleInstance.class);

    /** The socket a running window listens on. */
    public static final String SOCKET = "window.sock";
    /** The file whose lock the running window holds. */
    public static final String LOCK = "window.lock";
    /** How long a launch waits for the running window to answer. */
    public static final Duration ANSWER_WITHIN = Duration.ofSeconds(10);

    private static final String ASK = "show\n";
    private static final String ANSWER = "shown\n";

    private final FileChannel lockChannel;
    private final FileLock lock;
    private final ServerSocketChannel server;
    private final Path socket;
    private final Thread listener;
    private volatile Runnable onShow;
    /** A request that came before {@link #onShow} was set (the window is still being built). */
    private volatile boolean showPending;

    private volatile boolean closed;

    /** What {@link #claim} found. */
    public sealed interface Claim {
        /** This launch is the window of the data directory; keep it open until the app ends. */
        record First(SingleInstance instance) implements Claim {}

        /** Another window runs on the data directory and was asked to show itself; this launch ends. */
        record Shown() implements Claim {}
    }

    private SingleInstance(FileChannel lockChannel, FileLock lock, ServerSocketChannel server, Path socket) {
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.server = server;
        this.socket = socket;
        this.listener = new Thread(this::listen, "window-instance");
        listener.setDaemon(true);
        listener.start();
    }

    /**
     * Becomes the data directory's window, or asks the one running to show itself. Blocks for at
     * most about {@code answerWithin} (a running window that is still starting may not listen yet).
     *
     * @param dataDir the data directory (made owner-only when missing)
     * @param answerWithin how long to wait for a running window to answer
     * @return {@link Claim.First} with the instance to close at the end, or {@link Claim.Shown}
     * @throws LeasesyncException when the data directory cannot be used, or another window holds
     *     it but did not answer within {@code answerWithin}, with the path and what to do
     */
    public static Claim claim(Path dataDir, Duration answerWithin) {
        Objects.requireNonNull(answerWithin, "answerWithin");
        Path dir = dataDir.toAbsolutePath().normalize();
        Path socket = dir.resolve(SOCKET);
        long deadline = System.nanoTime() + answerWithin.toNanos();
        String lastProblem = "it does not listen on " + socket;
        while (true) {
            SingleInstance first = tryFirst(dir, socket);
            if (first != null) {
                return new Claim.First(first);
            }
            try {
                askToShow(socket, deadline);
                log.info("a leasesync window already runs on {}; it was asked to show itself", dir);
                return new Claim.Shown();
            } catch (IOException e) {
                lastProblem = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new LeasesyncException("another leasesync window holds the data directory " + dir
                        + " but did not answer within " + answerWithin.toSeconds() + " s (" + lastProblem
                        + "). If it hangs, end it (its process holds " + dir.resolve(LOCK) + ") and start again.");
            }
            try {
                Thread.sleep(100); // it holds the lock but is still binding its socket, or just quit
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LeasesyncException(
                        "interrupted while asking the running window on " + dir + " to show itself", e);
            }
        }
    }

    /** Takes the lock and binds the socket; null when another process holds the lock. */
    private static SingleInstance tryFirst(Path dir, Path socket) {
        FileChannel channel = null;
        try {
            OwnerOnlyFiles.directory(dir);
            Path lockFile = dir.resolve(LOCK);
            OwnerOnlyFiles.file(lockFile);
            channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // this JVM holds it already (tests run two instances in one process)
            }
            if (lock == null) {
                channel.close();
                return null;
            }
            if (Files.deleteIfExists(socket)) {
                log.info("removed the socket {} a window that ended without closing it left", socket);
            }
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(socket));
                Files.setPosixFilePermissions(socket, OwnerOnlyFiles.FILE); // rw for this account only
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            return new SingleInstance(channel, lock, server, socket);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // the failure below says what went wrong
                }
            }
            throw new LeasesyncException(
                    "cannot make sure only one leasesync window runs on " + dir + ": "
                            + (e.getMessage() == null ? e.toString() : e.getMessage())
                            + ". Choose another data directory with --data-dir or LEASESYNC_DATA_DIR.",
                    e);
        }
    }

    private static void askToShow(Path socket, long deadline) throws IOException {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            c.write(ByteBuffer.wrap(ASK.getBytes(StandardCharsets.US_ASCII)));
            String answer = readLine(c, deadline);
            if (!ANSWER.equals(answer)) {
                throw new IOException("it answered " + (answer.isEmpty() ? "nothing" : "'" + answer.strip() + "'"));
            }
        }
    }

    /**
     * Sets what a request to show the window runs (on the listener thread: hand over to the UI
     * thread). A request that came before is run now.
     */
    public void onShow(Runnable show) {
        this.onShow = Objects.requireNonNull(show, "show");
        if (showPending) {
            showPending = false;
            show.run();
        }
    }

    private void listen() {
        while (!closed) {
            try (SocketChannel c = server.accept()) {
                String ask =
                        readLine(c, System.nanoTime() + Duration.ofSeconds(2).toNanos());
                if (!ASK.equals(ask)) {
                    log.warn("ignored a request on {} that is not one of leasesync's: '{}'", socket, ask.strip());
                    continue;
                }
                log.info("another launch on this data directory asked to show the window");
                Runnable show = onShow;
                if (show == null) {
                    showPending = true;
                } else {
                    show.run();
                }
                c.write(ByteBuffer.wrap(ANSWER.getBytes(StandardCharsets.US_ASCII)));
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    log.warn("a request to show the window failed: {}", e.toString());
                }
            }
        }
    }

    /** Reads up to a newline (at most 64 bytes) until {@code deadline} ({@link System#nanoTime()}). */
    private static String readLine(SocketChannel c, long deadline) throws IOException {
        c.configureBlocking(false);
        ByteBuffer buf = ByteBuffer.allocate(64);
        try (Selector selector = Selector.open()) {
            c.register(selector, SelectionKey.OP_READ);
            while (buf.hasRemaining()) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new IOException("no answer in time");
                }
                if (selector.select(left) == 0) {
                    continue;
                }
                selector.selectedKeys().clear();
                int n = c.read(buf);
                if (n < 0 || buf.position() > 0 && buf.get(buf.position() - 1) == '\n') {
                    break;
                }
            }
        }
        buf.flip();
        return StandardCharsets.US_ASCII.decode(buf).toString();
    }

    /** Stops listening, removes the socket and releases the lock. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close(); // ends accept() on the listener thread
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            log.debug("closing {}: {}", socket, e.toString());
        }
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            log.debug("releasing {}: {}", LOCK, e.toString());
        }
    }
}
