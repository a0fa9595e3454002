/**
 * The sync protocol (v1) client: {@link org.leasesync.remote.HttpSyncRemote} over one shared OkHttp
 * client, the validated list of server URLs and the failover between them, what each exchange's
 * outcome proves, and the probe the window uses to tell offline from failing.
 *
 * <p>May import: {@code lease}, {@code sync} (the port it implements), {@code protocol} (the record
 * limits), OkHttp, Jackson.
 */
package org.leasesync.remote;
