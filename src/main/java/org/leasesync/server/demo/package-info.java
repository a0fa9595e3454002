/**
 * The demo the embedded server starts with: users alice, bob and admin with their tokens, and a
 * few records in each scope.
 *
 * <p>May import: {@code server.protocol} and {@code server.store}.
 */
package org.leasesync.server.demo;
