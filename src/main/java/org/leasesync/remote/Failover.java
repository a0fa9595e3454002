package org.leasesync.remote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import okhttp3.HttpUrl;
import org.leasesync.sync.RemoteException;

/**
 * Which of several server URLs a call goes to. A call starts at the URL in use and moves to the
 * next one only when the current one certainly did nothing with the request ({@link
 * Exchange.Unreached}: not sent, or {@code 503}); each URL is tried at most once per call, and all
 * attempts together stay within the call timeout. The URL where a call ended — it answered, or it
 * may have acted on the request — stays in use for later calls (sticky, never round-robin), so a
 * run talks to one instance while that instance works. Any other outcome (an HTTP error, an
 * ambiguous push) is the caller's, exactly as with a single URL: a push is never sent to a second
 * URL after the first may have received it.
 *
 * <p>Thread-safe: the URL in use is shared by concurrent calls. Blocks as long as its attempts.
 */
final class Failover {

    private static final System.Logger log = System.getLogger(Failover.class.getName());

    /** One attempt on one URL. */
    interface Attempt<T> {
        /**
         * @param server the URL for messages (no user info)
         * @param deadlineNanos the {@link System#nanoTime()} by which the whole call must end
         * @throws Exchange.Unreached when it did nothing on this URL
         */
        T run(HttpUrl base, String server, long deadlineNanos);
    }

    private final ServerUrls servers;
    private final Duration callTimeout;
    private final AtomicInteger current = new AtomicInteger();

    Failover(ServerUrls servers, Duration callTimeout) {
        this.servers = servers;
        this.callTimeout = callTimeout;
    }

    /** The URL later calls start at. */
    HttpUrl current() {
        return servers.urls().get(current.get());
    }

    /**
     * Runs {@code attempt} on the URL in use, then on the next ones while they are unreached.
     *
     * @param what the operation, for messages and the log
     * @throws RemoteException the first outcome that is not "unreached"; or, when no URL did
     *     anything, NOT_SENT ("cannot reach") or, if any answered {@code 503}, HTTP 503 — naming
     *     every URL tried (with one URL: the same error as without failover)
     */
    <T> T call(String what, Attempt<T> attempt) {
        int n = servers.size();
        long deadline = System.nanoTime() + callTimeout.toNanos();
        int start = current.get();
        List<Exchange.Unreached> unreached = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = (start + i) % n;
            HttpUrl base = servers.urls().get(index);
            String server = ServerUrls.display(base);
            if (i > 0) {
                Exchange.Unreached last = unreached.get(unreached.size() - 1);
                if (deadline - System.nanoTime() <= 0 || Thread.currentThread().isInterrupted()) {
                    break;
                }
                log.log(System.Logger.Level.INFO, "{0}: sync server {1} did not take the request ({2}); trying {3}",
                        what, last.server(), last.reason(), server);
            }
            try {
                T result = attempt.run(base, server, deadline);
                stick(start, index, unreached);
                return result;
            } catch (Exchange.Unreached u) {
                unreached.add(u);
            } catch (RuntimeException e) {
                stick(start, index, unreached);
                throw e;
            }
        }
        throw noServer(what, unreached);
    }

    private void stick(int start, int index, List<Exchange.Unreached> unreached) {
        if (index != start && current.compareAndSet(start, index)) {
            log.log(System.Logger.Level.INFO, "now using sync server {0} (instead of {1}: {2})",
                    ServerUrls.display(servers.urls().get(index)), unreached.get(0).server(), unreached.get(0).reason());
        }
    }

    private RemoteException noServer(String what, List<Exchange.Unreached> unreached) {
        if (servers.size() == 1) {
            return unreached.get(0).error();
        }
        boolean any503 = false;
        long retryAfter = -1;
        for (Exchange.Unreached u : unreached) {
            RemoteException e = u.error();
            if (e.kind() == RemoteException.Kind.HTTP) {
                any503 = true;
                if (e.retryAfterMillis() >= 0 && (retryAfter < 0 || e.retryAfterMillis() < retryAfter)) {
                    retryAfter = e.retryAfterMillis();   // the soonest any instance may be back
                }
            }
        }
        String tried = unreached.stream().map(Exchange.Unreached::server).collect(Collectors.joining(", "));
        String detail = unreached.stream().map(u -> u.server() + " (" + u.reason() + ")")
                .collect(Collectors.joining(", "));
        int skipped = servers.size() - unreached.size();
        String notTried = skipped == 0 ? "" : "; " + skipped + " more not tried: the call timeout ran out";
        String user = any503
                ? "no sync server is available (" + unreached.stream().map(u -> u.server() + ": "
                        + (u.error().kind() == RemoteException.Kind.HTTP ? "HTTP 503" : "unreachable"))
                        .collect(Collectors.joining(", ")) + notTried + ")"
                : "cannot reach the sync server at any of " + tried + notTried;
        return new RemoteException(any503 ? RemoteException.Kind.HTTP : RemoteException.Kind.NOT_SENT,
                any503 ? 503 : 0, any503 ? "unavailable" : "", retryAfter, user,
                (any503 ? "no sync server is available" : "cannot reach the sync server") + " for " + what
                        + ", tried " + detail + notTried, unreached.get(unreached.size() - 1).error());
    }
}
