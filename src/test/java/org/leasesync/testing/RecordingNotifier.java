package org.leasesync.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.leasesync.desktop.notify.NotificationPolicy;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.lease.TaskKey;

/**
 * A notifier that records what it is asked to show (every version of every notification) and
 * which are open; {@link #click} plays the user clicking one, {@link #dismiss} closing one.
 */
public final class RecordingNotifier implements Notifier {
    public final List<NotificationPolicy.Notice> shown = new CopyOnWriteArrayList<>();
    public final java.util.Map<Long, NotificationPolicy.Notice> open = new java.util.concurrent.ConcurrentHashMap<>();
    public final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();
    public volatile Consumer<TaskKey> clicked;

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public long show(NotificationPolicy.Notice notice, long replaces) {
        shown.add(notice);
        long id = replaces != 0 && open.containsKey(replaces) ? replaces : ids.incrementAndGet();
        open.put(id, notice);
        return id;
    }

    @Override
    public boolean isOpen(long id) {
        return open.containsKey(id);
    }

    /** The ids withdrawn, in order. */
    public final List<Long> withdrawn = new CopyOnWriteArrayList<>();

    @Override
    public void withdraw(long id) {
        if (open.remove(id) != null) {
            withdrawn.add(id);
        }
    }

    /** How many notifications were opened (a replaced one counts once). */
    public long opened() {
        return ids.get();
    }

    public void dismiss(long id) {
        open.remove(id);
    }

    public void click(TaskKey key) {
        clicked.accept(key);
    }

    @Override
    public void close() {}
}
