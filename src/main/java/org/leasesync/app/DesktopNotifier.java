package org.leasesync.app;

/**
 * Shows desktop notifications. {@link DbusNotifier} is the real one (the session D-Bus); the UI
 * tests use a recording one. Implementations are thread-safe; {@link #show} may block briefly
 * (one call on the bus) and is called off the FX thread.
 */
interface DesktopNotifier extends AutoCloseable {

    /** No notification service: shows nothing. */
    DesktopNotifier NONE = new DesktopNotifier() {
        @Override
        public boolean available() {
            return false;
        }

        @Override
        public boolean show(NotificationPolicy.Notice notice) {
            return false;
        }

        @Override
        public void close() {
        }
    };

    /** Whether notifications can be shown at all on this desktop. */
    boolean available();

    /** @return whether the notification service took it */
    boolean show(NotificationPolicy.Notice notice);

    @Override
    void close();
}
