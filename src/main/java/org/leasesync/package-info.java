/**
 * leasesync, a desktop sync client whose background syncs never run the same task twice at once.
 * This package holds only {@link org.leasesync.Launcher}, the main class: it builds the command line
 * and hands it the function that opens the window, so that the command line and the window never
 * import each other.
 *
 * <p>May import: {@code cli}, {@code desktop.fx} (to open the window), {@code chaos} (its
 * commands) and what they need to be wired.
 */
package org.leasesync;
