/**
 * The demo the embedded server starts with: accounts alice, bob and admin with random passwords, and a
 * few records in each scope.
 *
 * <p>May import: {@code server.protocol} and {@code server.store}.
 */
package org.leasesync.server.demo;
