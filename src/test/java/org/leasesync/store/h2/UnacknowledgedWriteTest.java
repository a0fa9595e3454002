package org.leasesync.store.h2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.leasesync.store.h2.UnacknowledgedWrite.Chunk;
import org.leasesync.store.h2.UnacknowledgedWrite.Named;

/**
 * The rule that tells one never-acknowledged chunk from saved data H2 cannot read. The layout is the
 * one the chaos run left in device-b (ids and blocks as found there): chunks 0x88 and 0x89 at the
 * end, the header naming 0x89 at block 0x18d, and chunk 0x8a written into reused space at block 2.
 */
class UnacknowledgedWriteTest {

    static final Chunk C88 = new Chunk(0x88, 0x88, 0x18a, 0x18d, 0x18d);
    static final Chunk C89 = new Chunk(0x89, 0x89, 0x18d, 0x190, 0x190);
    static final Chunk C8A_REUSED = new Chunk(0x8a, 0x8a, 2, 5, 0x5);

    @Test
    void oneUnreachableNextChunkNewerThanTheOpenedStateIsAnUnacknowledgedWrite() {
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, C88, C89), 0x89, 0x89, header(0x89, 0x18d)))
                .isTrue();
        // the header may name an older chunk than the opened one (H2 found the newer by the chain)
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, C88, C89), 0x89, 0x88, header(0x88, 0x18a)))
                .isTrue();
    }

    /**
     * The layout CI's failure left (KillBetweenChunkAndHeaderTest under load, ids and blocks as found):
     * the header still named chunk 0x7c at block 0x10 (H2 had appended 0x7d where 0x7c said the next
     * chunk would go, so it did not rewrite the header); 0x7d superseded all of 0x7c, H2 freed its
     * space and wrote 0x7e there, and was killed before the header naming 0x7e. H2 opens 0x7d (it
     * reads block 0x10 only as chunk 0x7c): nothing acknowledged is lost.
     */
    @Test
    void aChunkWrittenOverTheChunkTheStaleHeaderNamesIsAnUnacknowledgedWrite() {
        List<Chunk> file = List.of(
                new Chunk(0x74, 0x74, 2, 5, 0xe),
                new Chunk(0x71, 0x71, 5, 7, 0x161),
                new Chunk(0x72, 0x72, 7, 13, 0x31),
                new Chunk(0x73, 0x73, 13, 14, 0xe),
                new Chunk(0x75, 0x75, 14, 16, 0x10),
                new Chunk(0x7e, 0x7e, 0x10, 0x11, 0x12),
                new Chunk(0x7d, 0x7d, 0x11, 0x12, 0x12));
        assertThat(UnacknowledgedWrite.explains(file, 0x7d, 0x7c, header(0x7c, 0x10)))
                .isTrue();
        assertThat(UnacknowledgedWrite.explains(
                        file, 0x7d, 0x7c, List.of(new Named(0x7c, 0x10), new Named(0x7e, 0x10))))
                .as("but not when a header names the new chunk itself there")
                .isFalse();
    }

    @Test
    void aHeaderNamingANewerStateThanTheOpenedOneIsSavedDataLost() {
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, C88, C89), 0x89, 0x8a, header(0x8a, 2)))
                .isFalse();
    }

    @Test
    void twoNewerChunksAreMoreThanOneUnfinishedWrite() {
        Chunk c8b = new Chunk(0x8b, 0x8b, 5, 7, 0);
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, c8b, C88, C89), 0x89, 0x89, header(0x89, 0x18d)))
                .isFalse();
        assertThat(UnacknowledgedWrite.explains(List.of(c8b, C88, C89), 0x89, 0x89, header(0x89, 0x18d)))
                .as("not the chunk right after the opened one")
                .isFalse();
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, C89), 0x88, 0x88, header(0x88, 0x18a)))
                .as("the opened state's chunk is not in the file")
                .isFalse();
    }

    @Test
    void aNewerChunkH2CouldReachIsSavedDataItCouldNotRead() {
        Chunk predicted = new Chunk(0x89, 0x89, 0x18d, 0x190, 2);
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, C88, predicted), 0x89, 0x89, header(0x89, 0x18d)))
                .as("where the opened chunk said the next would go")
                .isFalse();
        Chunk atTheEnd = new Chunk(0x8a, 0x8a, 0x190, 0x193, 0);
        assertThat(UnacknowledgedWrite.explains(List.of(atTheEnd, C88, C89), 0x89, 0x89, header(0x89, 0x18d)))
                .as("the last chunk of the file")
                .isFalse();
        assertThat(UnacknowledgedWrite.explains(List.of(C8A_REUSED, C88, C89), 0x89, 0x89, header(0x8a, 2)))
                .as("the chunk a header names (its id at its block)")
                .isFalse();
        assertThat(UnacknowledgedWrite.explains(
                        List.of(C8A_REUSED, C88, C89), 0x89, 0x89, List.of(new Named(0x89, 0x18d), new Named(0x8a, 2))))
                .as("named by the other header")
                .isFalse();
    }

    @Test
    void chunkIdsWrapAt2To26() {
        long max = (1L << 26) - 1;
        Chunk last = new Chunk(max, 500, 10, 12, 12);
        Chunk wrapped = new Chunk(0, 501, 2, 4, 0);
        Chunk end = new Chunk(max - 1, 499, 12, 14, 14);
        assertThat(UnacknowledgedWrite.explains(List.of(wrapped, last, end), 500, 500, header(max, 10)))
                .isTrue();
    }

    @Test
    void aChunkMustLieAfterTheTwoHeaderBlocks() {
        assertThatThrownBy(() -> new Chunk(1, 1, 1, 3, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 1..3");
        assertThatThrownBy(() -> new Chunk(1, 1, 5, 5, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 5..5");
    }

    /** Both store headers naming the same chunk, as H2 writes them. */
    private static List<Named> header(long chunk, long block) {
        return List.of(new Named(chunk, block), new Named(chunk, block));
    }
}
