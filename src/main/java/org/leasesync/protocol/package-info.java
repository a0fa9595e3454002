/**
 * What the client and the reference server of sync protocol v1 agree on about a record, in one
 * place: {@link org.leasesync.protocol.RecordLimits} (sizes, nesting depth, the characters of ids
 * and payloads). The client refuses an edit that breaks them before it is saved or sent; the server
 * refuses a push entry that breaks them naming the entry, and withholds a stored record that breaks
 * them (stored by an older version) from its answers, naming it, instead of failing every answer.
 *
 * <p>May import: the JDK only. Every other package of leasesync may import it.
 */
package org.leasesync.protocol;
