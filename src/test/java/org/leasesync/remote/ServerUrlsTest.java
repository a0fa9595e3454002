package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;

class ServerUrlsTest {

    @Test
    void parsesACommaSeparatedListInOrderIgnoringBlanksAroundEntries() {
        ServerUrls s = ServerUrls.parse(" http://a.example:8787 ,https://b.example/sync/");
        assertThat(s.urls())
                .extracting(HttpUrl::toString)
                .containsExactly("http://a.example:8787/", "https://b.example/sync/");
        assertThat(s.first()).isEqualTo(HttpUrl.get("http://a.example:8787/"));
        assertThat(s.size()).isEqualTo(2);
    }

    @Test
    void oneUrlKeepsTheMessageItAlwaysHad() {
        assertThatThrownBy(() -> ServerUrls.parse("ftp://example.org"))
                .hasMessage("'ftp://example.org' is not an http:// or https:// URL");
        assertThatThrownBy(() -> ServerUrls.parse(" ")).hasMessage("no sync server URL given");
    }

    @Test
    void sixteenAreAllowedAndSeventeenAreNot() {
        String sixteen =
                IntStream.rangeClosed(1, 16).mapToObj(i -> "http://h" + i).collect(Collectors.joining(","));
        assertThat(ServerUrls.parse(sixteen).size()).isEqualTo(16);
        assertThatThrownBy(() -> ServerUrls.parse(sixteen + ",http://h17"))
                .hasMessage("17 server URLs given; at most 16 are allowed");
        assertThatThrownBy(() -> new ServerUrls(List.of())).hasMessage("no sync server URL given");
    }

    @Test
    void theSameServerSpelledTwiceIsRefusedNamingBothEntries() {
        assertThatThrownBy(() -> new ServerUrls(
                        List.of(HttpUrl.get("http://a:1"), HttpUrl.get("http://b:1"), HttpUrl.get("http://a:1/"))))
                .hasMessage("'http://a:1/' (entry 3 of 3) repeats entry 1");
    }

    @Test
    void messagesAndLogsNeverShowUserInfo() {
        ServerUrls s = ServerUrls.parse("https://bob:s3cret@a.example/x?token=abc,http://b.example");
        assertThat(s.toString())
                .isEqualTo("https://a.example/x, http://b.example/")
                .doesNotContain("s3cret", "abc");
    }
}
