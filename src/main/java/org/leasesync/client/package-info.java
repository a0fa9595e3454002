/**
 * The composition of a client process, shared by the window and the command line: the local
 * database, registry, heartbeat, coordinator, HTTP client and sync worker with their named, owned
 * executors ({@link org.leasesync.client.ClientRuntime}), their validated settings, the data
 * directory's location, stop signals and what a long-running process does on a fatal error; and how a conflict's two
 * versions differ ({@link org.leasesync.client.ConflictDiff}, an RFC 6902 diff by zjsonpatch).
 *
 * <p>May import: {@code lease}, {@code run}, {@code sync}, {@code store}, {@code store.h2},
 * {@code remote}, {@code keyring}, {@code files}, Jackson, zjsonpatch. Never {@code cli}, {@code desktop}, {@code chaos}, {@code server}, JavaFX or picocli.
 */
package org.leasesync.client;
