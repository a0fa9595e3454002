/**
 * The server's fault switches, for tests and the QA tools: latency, failed or dropped pushes,
 * delays after applying, throttling; their written form on the command line.
 *
 * <p>May import: the JDK only.
 */
package org.leasesync.server.faults;
