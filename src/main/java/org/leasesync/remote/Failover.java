package org.leasesync.remote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import okhttp3.HttpUrl;
import org.leasesync.sync.RemoteException;

/**
 * Which of several server URLs a call goes to, and where it goes after a failure. Every failed
 * attempt is classified ({@link FailureClass}) and the next step follows from the class and the
 * call's {@link Mode}:
 * <ol>
 *   <li>a {@link Mode#READ} (pull, push-status query, sign-out: repeating it changes nothing) goes to
 *       the next URL after any class, a frozen instance's timeout included;</li>
 *   <li>a {@link Mode#ONCE} call (a push, a sign-in) goes to the next URL only when the class proves
 *       the request did nothing ({@link FailureClass#mayHaveActed()} false); otherwise its error —
 *       AMBIGUOUS for a push — is the caller's, who asks the cluster about the idempotency key before
 *       sending anything again;</li>
 *   <li>a URL whose failure was of an {@linkplain FailureClass#unhealthy() unhealthy} class is
 *       avoided for a backoff ({@link InstanceHealth}): later calls try it last, so they do not
 *       each pay its timeout again.</li>
 * </ol>
 * Each URL is tried at most once per call, and all attempts together stay within the call timeout;
 * an attempt of a read with more URLs left gets at most half of the time left, so one frozen
 * instance cannot use up the whole call.
 * The URL where a call ended — it answered, or it may have acted on the request — stays in use for
 * later calls (sticky, never round-robin) unless it is being avoided. HTTP errors other than
 * {@code 503} (and a gateway's {@code 502}/{@code 504}) are answers: the caller's, as with one URL.
 *
 * <p>Thread-safe: the URL in use and the backoffs are shared by concurrent calls. Blocks as long as
 * its attempts.
 */
final class Failover {

    private static final System.Logger log = System.getLogger(Failover.class.getName());

    /** What a call's request may do on a server, which decides when it may go to the next URL. */
    enum Mode {
        /** Repeating it changes nothing: any failure may go to the next URL. */
        READ,
        /** It may change something: only a failure that proves it did nothing goes to the next URL. */
        ONCE
    }

    /** One attempt on one URL. */
    interface Attempt<T> {
        /**
         * @param server the URL for messages (no user info)
         * @param deadlineNanos the {@link System#nanoTime()} by which the whole call must end
         * @throws Exchange.AttemptFailed when it failed in a classified way on this URL
         */
        T run(HttpUrl base, String server, long deadlineNanos);
    }

    private final ServerUrls servers;
    private final Duration callTimeout;
    private final InstanceHealth health;
    private final AtomicInteger current = new AtomicInteger();

    Failover(ServerUrls servers, Duration callTimeout) {
        this(servers, callTimeout, System::nanoTime);
    }

    /** @param nanos the monotonic clock of the backoffs */
    Failover(ServerUrls servers, Duration callTimeout, LongSupplier nanos) {
        this.servers = servers;
        this.callTimeout = callTimeout;
        this.health = new InstanceHealth(servers.size(), nanos);
    }

    /** The URL later calls start at: the one that last took a request, unless it is being avoided. */
    HttpUrl current() {
        return servers.urls().get(health.order(current.get()).get(0));
    }

    /** Whether the URL at {@code index} is being avoided after a failure. */
    boolean avoided(int index) {
        return health.avoided(index);
    }

    /**
     * Runs {@code attempt} on the URLs in order ({@link InstanceHealth#order}) while the outcome
     * allows the next one ({@link Mode}).
     *
     * @param what the operation, for messages and the log
     * @throws RemoteException the first outcome that ends the call; or, when every URL failed, NOT_SENT
     *     ("cannot reach"), HTTP 503 when any answered {@code 503}, or AMBIGUOUS when any may have acted
     *     — naming every URL tried (with one URL: the same error as without failover)
     */
    <T> T call(String what, Mode mode, Attempt<T> attempt) {
        long deadline = System.nanoTime() + callTimeout.toNanos();
        int start = current.get();
        List<Integer> order = health.order(start);
        List<Exchange.AttemptFailed> failed = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            int index = order.get(i);
            HttpUrl base = servers.urls().get(index);
            String server = ServerUrls.display(base);
            if (i > 0) {
                if (deadline - System.nanoTime() <= 0 || Thread.currentThread().isInterrupted()) {
                    break;
                }
                Exchange.AttemptFailed last = failed.get(failed.size() - 1);
                log.log(
                        System.Logger.Level.INFO,
                        "{0}: sync server {1} failed ({2}: {3}); trying {4}{5}",
                        what,
                        last.server(),
                        last.failure(),
                        last.reason(),
                        server,
                        health.avoided(index) ? " (avoided after an earlier failure)" : "");
            }
            long attemptDeadline = deadline;
            if (mode == Mode.READ && i < order.size() - 1) {
                // leave the next URL half the time left: a frozen instance must not use up the whole call
                long now = System.nanoTime();
                attemptDeadline = now + Math.max(0, deadline - now) / 2;
            }
            try {
                T result = attempt.run(base, server, attemptDeadline);
                health.answered(index);
                stick(start, index, failed);
                return result;
            } catch (Exchange.AttemptFailed f) {
                health.failed(index, f.failure());
                if (mode == Mode.ONCE && f.failure().mayHaveActed()) {
                    stick(start, index, failed);
                    throw f.error();
                }
                failed.add(f);
            } catch (RuntimeException e) {
                health.answered(index); // it answered (an HTTP error is an answer)
                stick(start, index, failed);
                throw e;
            }
        }
        throw noServer(what, failed);
    }

    private void stick(int start, int index, List<Exchange.AttemptFailed> failed) {
        if (index != start && current.compareAndSet(start, index) && !failed.isEmpty()) {
            log.log(
                    System.Logger.Level.INFO,
                    "now using sync server {0} (instead of {1}: {2})",
                    ServerUrls.display(servers.urls().get(index)),
                    failed.get(0).server(),
                    failed.get(0).reason());
        }
    }

    private RemoteException noServer(String what, List<Exchange.AttemptFailed> failed) {
        if (failed.size() == 1 && servers.size() == 1) {
            return failed.get(0).error();
        }
        boolean any503 = false;
        boolean anyActed = false;
        long retryAfter = -1;
        for (Exchange.AttemptFailed f : failed) {
            anyActed |= f.failure().mayHaveActed();
            if (f.failure() == FailureClass.UNAVAILABLE) {
                any503 = true;
                long ra = f.error().retryAfterMillis();
                if (ra >= 0 && (retryAfter < 0 || ra < retryAfter)) {
                    retryAfter = ra; // the soonest any instance may be back
                }
            }
        }
        String tried = failed.stream().map(Exchange.AttemptFailed::server).collect(Collectors.joining(", "));
        String detail =
                failed.stream().map(f -> f.server() + " (" + f.reason() + ")").collect(Collectors.joining(", "));
        int skipped = servers.size() - failed.size();
        String notTried = skipped == 0 ? "" : "; " + skipped + " more not tried: the call timeout ran out";
        String summary =
                failed.stream().map(f -> f.server() + ": " + brief(f.failure())).collect(Collectors.joining(", "));
        RemoteException last = failed.get(failed.size() - 1).error();
        if (anyActed) {
            return new RemoteException(
                    RemoteException.Kind.AMBIGUOUS,
                    0,
                    "",
                    retryAfter,
                    "no sync server answered (" + summary + notTried + ")",
                    "no sync server answered " + what + ", tried " + detail + notTried,
                    last);
        }
        String user = any503
                ? "no sync server is available (" + summary + notTried + ")"
                : "cannot reach the sync server at any of " + tried + notTried;
        return new RemoteException(
                any503 ? RemoteException.Kind.HTTP : RemoteException.Kind.NOT_SENT,
                any503 ? 503 : 0,
                any503 ? "unavailable" : "",
                retryAfter,
                user,
                (any503 ? "no sync server is available" : "cannot reach the sync server") + " for " + what + ", tried "
                        + detail + notTried,
                last);
    }

    private static String brief(FailureClass failure) {
        return switch (failure) {
            case UNAVAILABLE -> "HTTP 503";
            case NEVER_SENT, REFUSED -> "unreachable";
            case NO_RESPONSE -> "no answer in time";
            case DROPPED -> "connection broke";
            case ANSWERED_LATE -> "gateway failed";
            case SLOW_BODY -> "answer cut off";
        };
    }
}
