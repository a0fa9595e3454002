package org.leasesync.desktop.notify;

/**
 * Shows desktop notifications. {@link DbusNotifier} is the real one (the session D-Bus); the UI
 * tests use a recording one. Implementations are thread-safe; {@link #show} may block briefly
 * (one call on the bus) and is called off the FX thread.
 */
public interface Notifier extends AutoCloseable {

    /** No notification service: shows nothing. */
    Notifier NONE = new Notifier() {
        @Override
        public boolean available() {
            return false;
        }

        @Override
        public long show(NotificationPolicy.Notice notice, long replaces) {
            return 0;
        }

        @Override
        public boolean isOpen(long id) {
            return false;
        }

        @Override
        public void withdraw(long id) {}

        @Override
        public void close() {}
    };

    /** Whether notifications can be shown at all on this desktop. */
    boolean available();

    /**
     * Shows {@code notice}, in place of the notification {@code replaces} when that one is still
     * shown (0: a new one).
     *
     * @return the notification's id, 0 when the notification service did not take it
     */
    long show(NotificationPolicy.Notice notice, long replaces);

    /** Whether the notification {@code id} is still shown (not closed, dismissed or expired). */
    boolean isOpen(long id);

    /**
     * Takes the notification {@code id} off the screen (it is no longer true). Nothing happens for
     * one already closed or 0; a failure is logged, never thrown. May block for one call on the bus.
     */
    void withdraw(long id);

    @Override
    void close();
}
