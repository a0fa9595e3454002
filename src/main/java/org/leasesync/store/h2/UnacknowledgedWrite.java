package org.leasesync.store.h2;

import java.util.List;
import java.util.Optional;

/**
 * Whether the only chunk of an H2 file newer than the state H2 opens is a write whose commit never
 * returned — which H2 rightly ignores, so nothing acknowledged is lost — as opposed to saved data H2
 * can no longer read. Part of {@link DatabaseFileCheck}.
 *
 * <p>H2 commits by writing a chunk and then, when the chunk is not where the store header's chain
 * or the end of the file lets H2 find it (a chunk written into reused space), rewriting the store
 * header to name it; the commit returns after both (with {@code WRITE_DELAY=0}, on the committing
 * thread). A process killed between the two writes ({@code kill -9}, a crash) leaves a complete
 * chunk that the header does not name and nothing else reaches; its commit never returned. That
 * state is exactly: one complete chunk newer than the opened state and no other; it is the chunk
 * written right after the opened one (the next chunk id); the header names nothing newer than the
 * opened state; and H2 cannot reach the chunk (no store header names it — its id at its block —, it
 * is not where the opened chunk said the next one would be, not the last chunk in the file).
 * Anything else newer than what H2 opens is saved data H2 would drop.
 *
 * <p>The chunk may lie in the very blocks of the chunk the (stale) header still names: H2 writes
 * the header lazily, so it can name a chunk older than the opened one; once that chunk's pages are
 * all superseded H2 frees its space and may put the next chunk there, and only then rewrites the
 * header. H2 reads a header's block only as the chunk the header names (it checks the chunk id in
 * the chunk's header and footer), so the new chunk there is not reached through the header.
 *
 * <p>This relies on H2 naming the chunk just written in the header it writes after it; H2 2.5.252
 * named the one before and so lost acknowledged commits on {@code kill -9}
 * ({@code KillAfterAcknowledgedCommitTest} guards that for any H2 version).
 *
 * <p>Stateless and thread-safe; pure (no I/O).
 */
final class UnacknowledgedWrite {

    /** H2's chunk ids wrap at 2^26 - 1. */
    private static final long MAX_CHUNK_ID = (1L << 26) - 1;

    private UnacknowledgedWrite() {}

    /**
     * @param complete every complete chunk found in the file (any order)
     * @param openedVersion the version H2's read-only open ends at
     * @param headerVersion the newest version a valid store header names, or -1
     * @param named the chunk each valid store header names (one or two; none when neither is valid)
     * @return true when everything newer than {@code openedVersion} is one unacknowledged write
     */
    static boolean explains(List<Chunk> complete, long openedVersion, long headerVersion, List<Named> named) {
        if (headerVersion > openedVersion) {
            return false; // the header names a newer state: it was saved, and H2 cannot read it
        }
        List<Chunk> newer =
                complete.stream().filter(c -> c.version() > openedVersion).toList();
        if (newer.size() != 1) {
            return false;
        }
        Chunk unfinished = newer.get(0);
        Optional<Chunk> opened = complete.stream()
                .filter(c -> c.version() == openedVersion)
                .filter(c -> ((c.id() + 1) & MAX_CHUNK_ID) == unfinished.id())
                .findFirst();
        if (opened.isEmpty()) {
            return false;
        }
        boolean reachable = named.stream().anyMatch(n -> n.id() == unfinished.id() && n.block() == unfinished.block())
                || opened.get().next() == unfinished.block()
                || complete.stream().noneMatch(c -> c.endBlock() > unfinished.endBlock());
        return !reachable;
    }

    /**
     * The chunk a store header names.
     *
     * @param id the chunk id (the header's {@code chunk})
     * @param block its first block (the header's {@code block})
     */
    record Named(long id, long block) {}

    /**
     * One complete chunk in the file.
     *
     * @param id the chunk id
     * @param version the store version it holds
     * @param block its first block
     * @param endBlock the block after its last
     * @param next where H2 predicted the chunk after it would go (its header's {@code next}), or 0
     */
    record Chunk(long id, long version, long block, long endBlock, long next) {
        Chunk {
            if (block < 2 || endBlock <= block) {
                throw new IllegalArgumentException("a chunk spans blocks 2 or later, got " + block + ".." + endBlock);
            }
        }
    }
}
