package org.leasesync.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.leasesync.desktop.tray.TrayPort;

/** A tray that records what it is shown and hands the test its menu. */
public final class RecordingTray implements TrayPort {
    public final boolean available;
    public final List<TrayView> views = new CopyOnWriteArrayList<>();
    public volatile TrayMenu menu;
    public volatile boolean removed;

    public RecordingTray(boolean available) {
        this.available = available;
    }

    @Override
    public boolean install(TrayMenu m, TrayView initial) {
        if (!available) {
            return false;
        }
        menu = m;
        views.add(initial);
        return true;
    }

    @Override
    public void show(TrayView view) {
        views.add(view);
    }

    @Override
    public void remove() {
        removed = true;
    }

    @Override
    public boolean iconShown() {
        return menu != null && !removed;
    }

    public TrayView last() {
        return views.get(views.size() - 1);
    }
}
