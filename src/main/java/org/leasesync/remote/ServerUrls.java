package org.leasesync.remote;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import okhttp3.HttpUrl;

/**
 * The sync server base URLs a client may use, in order of preference: one URL, or the instances of
 * a cluster that all serve the same data (docs/architecture.md, "Several server URLs"). Immutable;
 * validated in the constructor.
 *
 * @param urls 1..{@value #MAX} distinct http(s) base URLs; the first is tried first
 */
public record ServerUrls(List<HttpUrl> urls) {

    /** The most URLs one client may be given. */
    public static final int MAX = 16;

    /** @throws IllegalArgumentException naming the bad entry: none, too many, or a duplicate */
    public ServerUrls {
        if (urls == null || urls.isEmpty()) {
            throw new IllegalArgumentException("no sync server URL given");
        }
        urls = List.copyOf(urls);
        if (urls.size() > MAX) {
            throw new IllegalArgumentException(urls.size() + " server URLs given; at most " + MAX + " are allowed");
        }
        for (int i = 0; i < urls.size(); i++) {
            int first = urls.indexOf(urls.get(i));
            if (first < i) {
                throw new IllegalArgumentException(
                        "'" + display(urls.get(i)) + "'" + entry(i, urls.size()) + " repeats entry " + (first + 1));
            }
        }
    }

    /**
     * Parses one URL or several separated by commas ({@code http://a:8787,http://b:8787}); blanks
     * around each entry are ignored.
     *
     * @throws IllegalArgumentException naming the bad entry (and its position, when there are several)
     */
    public static ServerUrls parse(String commaSeparated) {
        if (commaSeparated == null || commaSeparated.isBlank()) {
            throw new IllegalArgumentException("no sync server URL given");
        }
        String[] parts = commaSeparated.split(",", -1);
        if (parts.length > MAX) {
            throw new IllegalArgumentException(parts.length + " server URLs given; at most " + MAX + " are allowed");
        }
        List<HttpUrl> urls = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i].trim();
            if (p.isEmpty()) {
                throw new IllegalArgumentException("entry " + (i + 1) + " of " + parts.length + " is empty");
            }
            HttpUrl u = HttpUrl.parse(p);
            if (u == null) {
                throw new IllegalArgumentException(
                        "'" + p + "'" + entry(i, parts.length) + " is not an http:// or https:// URL");
            }
            urls.add(u);
        }
        return new ServerUrls(urls);
    }

    /** One URL. @throws IllegalArgumentException naming it when it is not http(s) */
    public static ServerUrls single(String url) {
        HttpUrl u = url == null ? null : HttpUrl.parse(url.trim());
        if (u == null) {
            throw new IllegalArgumentException("'" + url + "' is not an http:// or https:// URL");
        }
        return new ServerUrls(List.of(u));
    }

    public HttpUrl first() {
        return urls.get(0);
    }

    public int size() {
        return urls.size();
    }

    /** The URLs for logs and messages, comma-separated, without user info, query or fragment. */
    @Override
    public String toString() {
        return urls.stream().map(ServerUrls::display).collect(Collectors.joining(", "));
    }

    /** A URL for logs and messages: no user info (it may hold a password), query or fragment. */
    public static String display(HttpUrl u) {
        return u.newBuilder()
                .username("")
                .password("")
                .query(null)
                .fragment(null)
                .build()
                .toString();
    }

    private static String entry(int index, int of) {
        return of == 1 ? "" : " (entry " + (index + 1) + " of " + of + ")";
    }
}
