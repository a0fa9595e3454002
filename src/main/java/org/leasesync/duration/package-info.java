/**
 * The one written form of a duration, shared by the command line (client commands and
 * {@code serve}), the window's settings and the server's fault specs: {@link
 * org.leasesync.duration.DurationGrammar}.
 *
 * <p>May import: the JDK only.
 */
package org.leasesync.duration;
