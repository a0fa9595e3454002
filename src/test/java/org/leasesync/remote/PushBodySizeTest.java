package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushLimits;
import org.leasesync.sync.UnsendableEntryException;

/**
 * {@link PushLimits} counts exactly the bytes the protocol client sends, so an edit is refused when
 * it is made if and only if its push would be refused as too large.
 */
class PushBodySizeTest {

    // every character a record id may hold (RecordLimits: no control character, no unpaired
    // surrogate, no white space at either end), across the UTF-8 lengths and JSON's escapes
    static final String[] ID_PARTS = {
        "a", "Z", "9", "-", "\"", "\\", "/", " ", "é", "ß", "€", "日本", "😀", "\u00a0", "\u00a1", "\u07ff", "\u0800",
        "\uffff"
    };
    static final String[] PAYLOADS = {
        "{}",
        "{\"title\":\"Algebra\",\"progress\":0.5}",
        "{ \"spaced\" : [ 1 , 2 ] }",
        "{\"t\":\"é😀\\u00e9\\n\",\"n\":1.0E-5,\"b\":true,\"z\":null}",
        "{\"nested\":{\"a\":[{\"b\":\"\\\"q\\\"\"}]}}"
    };

    @Test
    void theComputedSizeIsTheSizeOfTheBodySentForAnyIdsVersionsAndPayloads() {
        Random random = new Random(12);
        for (int round = 0; round < 300; round++) {
            List<OutboxEntry> entries = new ArrayList<>();
            int n = 1 + random.nextInt(4);
            for (int i = 0; i < n; i++) {
                StringBuilder id = new StringBuilder("a"); // never white space at either end
                for (int p = 1 + random.nextInt(6); p > 0; p--) {
                    id.append(ID_PARTS[random.nextInt(ID_PARTS.length)]);
                }
                id.append('z');
                long base = switch (random.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> random.nextInt(10);
                    case 2 -> random.nextInt(1_000_000);
                    default -> Long.MAX_VALUE;
                };
                entries.add(new OutboxEntry(
                        i,
                        java.util.UUID.randomUUID().toString(),
                        id.toString(),
                        base,
                        random.nextBoolean(),
                        PAYLOADS[random.nextInt(PAYLOADS.length)],
                        Instant.EPOCH));
            }
            String body = HttpSyncRemote.pushBody(new PushBatch("b", "k", entries));
            assertThat(PushLimits.batchBytes(entries)).as(body).isEqualTo(body.getBytes(StandardCharsets.UTF_8).length);
            if (n == 1) {
                assertThat(PushLimits.aloneBytes(entries.get(0)))
                        .isEqualTo(body.getBytes(StandardCharsets.UTF_8).length);
            }
        }
    }

    @Test
    void aStoredPayloadThatIsNotOneJsonObjectCannotBeSent() {
        for (String bad : List.of("{\"a\":1", "[1,2]", "{\"a\":1} trailing", "", "nul")) {
            OutboxEntry e = new OutboxEntry(1, "c-" + bad.length(), "r1", 0, false, bad, Instant.EPOCH);
            assertThatThrownBy(() -> HttpSyncRemote.pushBody(new PushBatch("b", "k", List.of(e))))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            UnsendableEntryException.class,
                            u -> assertThat(u.changeId()).isEqualTo(e.changeId()))
                    .hasMessageContaining("the edit of record 'r1' cannot be sent");
        }
    }
}
