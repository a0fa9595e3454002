package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.RemoteRecord;

/** The pull answer is read with the streaming parser, payloads kept exactly as sent. */
class PullPageReaderTest {

    final ObjectMapper mapper = new ObjectMapper();
    final PullPageReader reader = new PullPageReader(mapper.getFactory());

    static final String TWO = "{\"changes\":["
            + "{\"id\":\"r1\",\"version\":3,\"deleted\":false,\"payload\":{\"t\":\"é \\\"q\\\" 😀\",\"n\":[1,2.50,{\"x\":null}],"
            + "\"big\":1.000000000000000000001},\"serverTime\":\"2026-11-30T10:00:00.123Z\"},"
            + "{\"id\":\"r2\",\"version\":7,\"deleted\":true,\"payload\":null,\"serverTime\":\"2026-11-30T10:00:01Z\"}"
            + "],\"nextCursor\":\"42\",\"hasMore\":true}";

    PullPage read(String json) throws Exception {
        return reader.read(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsEveryFieldAndKeepsThePayloadExactlyAsTheServerWroteIt() throws Exception {
        PullPage page = read(TWO);
        assertThat(page.nextCursor()).isEqualTo("42");
        assertThat(page.hasMore()).isTrue();
        assertThat(page.records())
                .containsExactly(
                        new RemoteRecord(
                                "r1",
                                3,
                                false,
                                "{\"t\":\"é \\\"q\\\" 😀\",\"n\":[1,2.50,{\"x\":null}],"
                                        + "\"big\":1.000000000000000000001}",
                                Instant.parse("2026-11-30T10:00:00.123Z")),
                        new RemoteRecord("r2", 7, true, "{}", Instant.parse("2026-11-30T10:00:01Z")));
        // the kept text is the same JSON value the tree parser sees
        assertThat(mapper.readTree(page.records().get(0).payloadJson()))
                .isEqualTo(mapper.readTree(TWO).get("changes").get(0).get("payload"));
    }

    @Test
    void skipsUnknownFieldsAtEveryLevelAndAcceptsAnyOrderAndWhitespace() throws Exception {
        PullPage page =
                read("{ \"extra\": {\"a\":[1,{\"b\":2}]}, \"hasMore\" : false, \"changes\" : [ { \"serverTime\":"
                        + " \"2026-11-30T10:00:00Z\", \"future\": [[]], \"payload\" : { \"k\" : [ ] } , \"version\": 1, \"id\": \"a\" } ],"
                        + " \"nextCursor\": \"c\", \"more\": null }");
        assertThat(page.hasMore()).isFalse();
        assertThat(page.records()).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo("a");
            assertThat(r.version()).isEqualTo(1);
            assertThat(r.deleted()).isFalse();
            assertThat(r.payloadJson()).isEqualTo("{ \"k\" : [ ] }");
        });
    }

    @Test
    void everyTruncationOfAValidAnswerIsAnErrorNeverAShorterPage() {
        byte[] full = TWO.getBytes(StandardCharsets.UTF_8);
        for (int n = 0; n < full.length; n++) {
            byte[] cut = Arrays.copyOf(full, n);
            int at = n;
            assertThatThrownBy(() -> reader.read(cut))
                    .as("cut after %d bytes", at)
                    .isInstanceOfAny(JsonProcessingException.class, IllegalArgumentException.class);
        }
    }

    @Test
    void aMissingOrMistypedFieldIsNamedWithItsChange() {
        assertThatThrownBy(() -> read("{\"changes\":[{\"id\":\"r1\",\"serverTime\":\"2026-11-30T10:00:00Z\"}],"
                        + "\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessage("missing 'version' in change 0");
        assertThatThrownBy(() -> read("{\"changes\":[],\"hasMore\":false}")).hasMessage("missing 'nextCursor'");
        assertThatThrownBy(() -> read("{\"changes\":[],\"nextCursor\":\"1\"}")).hasMessage("missing 'hasMore'");
        assertThatThrownBy(() -> read("{\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessage("missing 'changes'");
        assertThatThrownBy(() -> read("{\"changes\":{},\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessage("'changes' is not an array");
        assertThatThrownBy(() -> read("{\"changes\":[],\"nextCursor\":1,\"hasMore\":false}"))
                .hasMessage("'nextCursor' is not a string");
        assertThatThrownBy(() -> read("{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":\"yes\"}"))
                .hasMessage("'hasMore' is not true or false");
        assertThatThrownBy(() -> read(
                        "{\"changes\":[{},{\"id\":\"x\",\"version\":\"2\"}],\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessage("missing 'id' in change 0");
        assertThatThrownBy(() -> read("{\"changes\":[{\"id\":\"x\",\"version\":2,\"serverTime\":\"yesterday\"}],"
                        + "\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessageStartingWith("'serverTime' is not an ISO-8601 instant in change 0");
        assertThatThrownBy(() ->
                        read("{\"changes\":[{\"id\":\"x\",\"version\":0,\"serverTime\":\"2026-11-30T10:00:00Z\"}],"
                                + "\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessageContaining("versions start at 1");
        assertThatThrownBy(() -> read("{\"changes\":[7],\"nextCursor\":\"1\",\"hasMore\":false}"))
                .hasMessage("change 0 is not an object");
    }

    @Test
    void anythingButOneJsonObjectIsRefused() {
        assertThatThrownBy(() -> read("[]")).hasMessage("expected a JSON object");
        assertThatThrownBy(() -> read("{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":false} {}"))
                .hasMessage("trailing content after the answer");
        assertThatThrownBy(() -> read("{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":false}x"))
                .isInstanceOf(JsonProcessingException.class);
        assertThatThrownBy(() -> read("{\"changes\":[{\"id\":\"x\",\"version\":1,\"payload\":{\"a\":tru},"
                        + "\"serverTime\":\"2026-11-30T10:00:00Z\"}],\"nextCursor\":\"1\",\"hasMore\":false}"))
                .isInstanceOf(JsonProcessingException.class);
    }

    @Test
    void theFastInstantPathAgreesWithInstantParseOnEveryFormAndRefusesWhatItRefuses() {
        java.util.List<String> cases = new java.util.ArrayList<>(java.util.List.of(
                "2026-11-30T10:00:00Z",
                "1970-01-01T00:00:00Z",
                "2024-02-29T23:59:59.999999999Z",
                "2026-11-30T10:00:00.1Z",
                "2026-11-30T10:00:00.12Z",
                "2026-11-30T10:00:00.123456Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59Z",
                "2026-12-31T23:59:60Z",
                "2026-11-30T10:00:00+01:00",
                "+12026-11-30T10:00:00Z",
                "2026-11-30T10:00:00.Z",
                "2026-11-30T10:00:00.1234567890Z",
                "2023-02-29T10:00:00Z",
                "2026-13-01T10:00:00Z",
                "2026-11-31T10:00:00Z",
                "2026-11-30T24:00:00Z",
                "2026-11-30T10:60:00Z",
                "2026-11-30T10:00:61Z",
                "2026-11-30 10:00:00Z",
                "2026-11-30T10:00:00",
                "2026-1l-30T10:00:00Z",
                "yesterday",
                "",
                "2026-11-30T10:00:00.-1Z"));
        java.util.Random random = new java.util.Random(14);
        for (int i = 0; i < 2_000; i++) {
            Instant t = Instant.ofEpochSecond(random.nextLong(253_402_300_800L), random.nextInt(1_000_000_000));
            cases.add(t.toString());
            cases.add(t.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString());
        }
        for (String s : cases) {
            Instant expected;
            try {
                expected = Instant.parse(s);
            } catch (java.time.DateTimeException e) {
                assertThatThrownBy(() -> PullPageReader.instant(s))
                        .as(s)
                        .isInstanceOf(java.time.DateTimeException.class);
                continue;
            }
            assertThat(PullPageReader.instant(s)).as(s).isEqualTo(expected);
        }
    }
}
