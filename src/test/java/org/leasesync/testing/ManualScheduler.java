package org.leasesync.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose time moves only when the test says so ({@link #advance}): delayed tasks run on
 * the test's thread, in due order, when their time comes. One-shot {@code schedule} and
 * {@code execute} only (periodic scheduling is refused). Thread-safe.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final long dueNanos;
        final long seq;

        Task(Callable<V> work, long dueNanos, long seq) {
            super(work);
            this.dueNanos = dueNanos;
            this.seq = seq;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (ManualScheduler.this) {
                return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }
    }

    private final List<Task<?>> tasks = new ArrayList<>();
    private long nowNanos;
    private long seq;
    private boolean shutdown;

    /** Moves time on by {@code d}, running every task that falls due, in due order. */
    public void advance(Duration d) {
        long until;
        synchronized (this) {
            until = nowNanos + d.toNanos();
        }
        while (true) {
            Task<?> next;
            synchronized (this) {
                tasks.removeIf(Task::isCancelled);
                next = tasks.stream()
                        .filter(t -> t.dueNanos <= until)
                        .min(Comparator.<Task<?>>comparingLong(t -> t.dueNanos).thenComparingLong(t -> t.seq))
                        .orElse(null);
                if (next == null) {
                    nowNanos = until;
                    return;
                }
                tasks.remove(next);
                nowNanos = Math.max(nowNanos, next.dueNanos);
            }
            next.run();
        }
    }

    /** Tasks armed and not yet run or cancelled. */
    public synchronized int pending() {
        tasks.removeIf(Task::isCancelled);
        return tasks.size();
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return schedule(
                () -> {
                    command.run();
                    return null;
                },
                delay,
                unit);
    }

    @Override
    public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }
        Task<V> t = new Task<>(callable, nowNanos + unit.toNanos(Math.max(0, delay)), seq++);
        tasks.add(t);
        return t;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported by the manual scheduler");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported by the manual scheduler");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(tasks);
        tasks.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && tasks.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }
}
