/**
 * The reference sync server, composed: {@link org.leasesync.server.ReferenceServer} wires its
 * database, stores, HTTP routes, metrics and jobs from a validated
 * {@link org.leasesync.server.ServerConfig}.
 *
 * <p>May import: its sub-packages, {@code lease} and {@code store} (the lease store and guard its
 * jobs run on), Bouncy Castle's PEM reader (the TLS certificate and key, {@code ServerTls}). Never
 * the client's {@code sync}, {@code remote}, {@code client}, a front end or
 * {@code chaos}.
 */
package org.leasesync.server;
