/**
 * The server's HTTP side on the JDK's {@code HttpServer}: the router, authentication against live
 * sessions, the sign-in and session endpoints, the pull, push, push-status, health and admin
 * handlers, fencing-token checks, the push transaction and the
 * Prometheus metrics.
 *
 * <p>May import: {@code server.protocol}, {@code protocol} (the record limits), {@code server.store}, {@code server.faults},
 * {@code server.jobs}, Jackson, Micrometer.
 */
package org.leasesync.server.http;
