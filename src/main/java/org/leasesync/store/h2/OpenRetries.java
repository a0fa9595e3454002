package org.leasesync.store.h2;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.leasesync.lease.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How opening a shared H2 file is retried. Several processes starting at once on one data directory
 * race for H2's lock file (the first becomes the automatic-mixed-mode server, and the role moves
 * when it exits); the losers briefly see "lock file recently modified" or a refused connection to a
 * server that is just starting or stopping. Those failures are retried for up to
 * {@link #OPEN_RETRY_SECONDS}; any other failure is reported at once. A holder that accepts the
 * connection but does not answer (stopped or hung) is asked twice, half of the open timeout each
 * time, each attempt on a thread of its own that is abandoned when it does not answer in time (H2
 * has no read timeout for that).
 *
 * <p>Stateless and thread-safe. {@link #open} blocks for up to the open timeout, or
 * {@link #OPEN_RETRY_SECONDS} while processes race.
 */
public final class OpenRetries {

    private static final Logger log = LoggerFactory.getLogger(OpenRetries.class);

    /** How long opening waits for a process that holds the database but does not answer, unless configured. */
    public static final Duration DEFAULT_OPEN_TIMEOUT = Duration.ofSeconds(40);

    /** Shortest accepted open timeout. */
    public static final Duration MIN_OPEN_TIMEOUT = Duration.ofMillis(200);

    /** Longest accepted open timeout. */
    public static final Duration MAX_OPEN_TIMEOUT = Duration.ofMinutes(10);

    /** How long several processes may keep racing for the database before opening gives up. */
    static final long OPEN_RETRY_SECONDS = 90;

    private OpenRetries() {}

    /**
     * @return {@code timeout}
     * @throws IllegalArgumentException naming the value and the accepted range
     */
    public static Duration validateOpenTimeout(Duration timeout) {
        if (timeout == null || timeout.compareTo(MIN_OPEN_TIMEOUT) < 0 || timeout.compareTo(MAX_OPEN_TIMEOUT) > 0) {
            throw new IllegalArgumentException(
                    "the database open timeout must be between 200ms and 10m, got " + timeout);
        }
        return timeout;
    }

    /**
     * Opens {@code file} with {@code attempt}, retrying transient failures (above).
     *
     * @param attempt one open of the file; throws {@link StoreException} when it fails
     * @param closeLate closes what an abandoned attempt opens after all
     * @return what the first successful attempt returned
     * @throws StoreException the failure of the last attempt, or one naming the process that holds
     *     the file without answering
     */
    public static <T> T open(Path file, Duration openTimeout, Supplier<T> attempt, Consumer<T> closeLate) {
        String description = file.toString();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(OPEN_RETRY_SECONDS);
        Duration perAttempt = openTimeout.dividedBy(2);
        Random random = new Random();
        int unanswered = 0;
        Path lockFile = Path.of(description.replace(".mv.db", ".lock.db"));
        while (true) {
            // Whether another process served the file as this attempt began: one that closes it
            // meanwhile ends its server and deletes the lock file, and this attempt then sees an EOF.
            boolean served = Files.exists(lockFile);
            try {
                Optional<T> opened = openOnce(attempt, closeLate, description, perAttempt);
                if (opened.isPresent()) {
                    return opened.get();
                }
                if (++unanswered >= 2 || System.nanoTime() > deadline) {
                    throw unanswered(file, openTimeout);
                }
            } catch (StoreException e) {
                if (!isTransientOpenFailure(e.getMessage(), lockFile, served) || System.nanoTime() > deadline) {
                    throw e;
                }
                log.debug("database busy while opening, retrying: {}", e.getMessage());
                try {
                    Thread.sleep(100 + random.nextInt(400));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static StoreException unanswered(Path file, Duration openTimeout) {
        Optional<Long> pid = DatabaseHost.pid(DataDirectory.lockFile(file.getParent()));
        String who = pid.map(p -> "another leasesync process (pid " + p + ")").orElse("another leasesync process");
        String what = pid.map(p -> "Resume it (kill -CONT " + p + ") or end it (kill " + p + "), then try again.")
                .orElse("Find it with `ps -ef | grep leasesync`, resume it (kill -CONT) or end it, then try again.");
        return new StoreException("the local database " + file + " is held by " + who + " that has not answered for "
                + seconds(openTimeout) + " (stopped or hung?) — nothing was changed. " + what);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** One attempt, abandoned after {@code timeout}: empty when it got no answer in time. */
    private static <T> Optional<T> openOnce(
            Supplier<T> attempt, Consumer<T> closeLate, String description, Duration timeout) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        result.complete(attempt.get());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "db-open");
        t.setDaemon(true);
        t.start();
        try {
            return Optional.of(result.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            result.thenAccept(closeLate); // if it ever opens, close it
            return Optional.empty(); // no answer within the timeout
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new StoreException(
                    "cannot open the local database " + description + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while opening " + description, e);
        }
    }

    /**
     * Several processes starting and ending at once on one data directory race for H2's lock file
     * (the first becomes the automatic-mixed-mode server, and the role moves when it exits); the
     * others briefly see these failures. They are retried; anything else is reported at once.
     */
    private static boolean isTransientOpenFailure(String message, Path lockFile, boolean servedAtStart) {
        String m = message.toLowerCase(Locale.ROOT);
        return H2Messages.isHandover(message)
                || m.contains("connection refused")
                || m.contains("session closed")
                // another process is reading the file for its start-up check (DatabaseFileCheck) or opening it
                || m.contains("file is locked")
                || m.contains("concurrent update")
                || m.contains("another process was faster")
                // the process serving the file was killed while this one connected to it
                || m.contains("connection reset")
                // an EOF while another process serves the file, or served it when the attempt began,
                // is a handover, not damage
                || m.contains("eofexception") && (servedAtStart || Files.exists(lockFile));
    }
}
