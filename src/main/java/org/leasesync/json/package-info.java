/**
 * The configured Jackson mappers the client, the window, the command line, the keyring, the chaos
 * harness and the server's jobs share, so that each kind of JSON is read and written the same way
 * wherever it is handled. A reader of untrusted network input bounds it by the record limits and
 * configures its mapper where those limits are known (the protocol client and the server's
 * protocol values), as does a reader that must tolerate fields a newer server adds.
 *
 * <p>May import: the JDK and Jackson only.
 */
package org.leasesync.json;
