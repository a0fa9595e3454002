package org.leasesync.server.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Decoding of request paths into segments. Stateless. */
public final class PathSegments {

    private PathSegments() {}

    /** The path's segments after the leading slash, percent-decoded as UTF-8 ('+' stays '+'). */
    public static List<String> of(String rawPath) {
        if (rawPath == null || !rawPath.startsWith("/")) {
            throw ApiError.notFound("no such endpoint");
        }
        List<String> out = new ArrayList<>();
        for (String raw : rawPath.substring(1).split("/", -1)) {
            out.add(percentDecode(raw));
        }
        return out;
    }

    private static String percentDecode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    throw ApiError.badRequest("malformed percent-encoding in path segment '" + raw + "'");
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw ApiError.badRequest("malformed percent-encoding in path segment '" + raw + "'");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw ApiError.badRequest("path segment '" + raw + "' is not UTF-8");
        }
    }
}
