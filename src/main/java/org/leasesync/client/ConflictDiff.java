package org.leasesync.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.flipkart.zjsonpatch.DiffFlags;
import com.flipkart.zjsonpatch.JsonDiff;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.leasesync.json.JsonMappers;

/**
 * How the two versions of a conflict differ, field by field: the RFC 6902 JSON Patch that turns the
 * server's version into this device's (computed by zjsonpatch, moves and copies written as removes and
 * adds), each operation's JSON Pointer (RFC 6901) the path of one difference. Also both versions as
 * lines for people to read, each line marked when it belongs to a top-level field that differs — the
 * window and {@code records --conflicts} show the same marks.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConflictDiff {

    /** Numbers kept as written ({@code 0.10} is not {@code 0.1}): a diff must not report what is equal as text. */
    private static final ObjectMapper JSON = JsonMappers.CONTENT;

    private static final ObjectWriter PRETTY = JSON.writerWithDefaultPrettyPrinter();

    /** What one difference is, from this device's side. */
    public enum Change {
        /** Both versions have the field, with other values. */
        CHANGED,
        /** Only this device's version has the field. */
        ONLY_MINE,
        /** Only the server's version has the field. */
        ONLY_SERVER,
        /** One side is no record at all (deleted, or not on the server): the whole record differs. */
        WHOLE_RECORD
    }

    /**
     * One difference.
     *
     * @param pointer the JSON Pointer of the value that differs ({@code /title}, {@code /rooms/1});
     *     {@code ""} for the whole record
     */
    public record Difference(String pointer, Change change) {
        public Difference {
            Objects.requireNonNull(pointer, "pointer");
            Objects.requireNonNull(change, "change");
        }

        /** The top-level field the difference is in, unescaped ({@code rooms}); {@code ""} for the whole record. */
        public String field() {
            if (pointer.isEmpty()) {
                return "";
            }
            int end = pointer.indexOf('/', 1);
            return unescape(pointer.substring(1, end < 0 ? pointer.length() : end));
        }

        /** The path for people: {@code rooms/1}, {@code title}; {@code ""} for the whole record. */
        public String path() {
            return pointer.isEmpty() ? "" : unescape(pointer.substring(1));
        }
    }

    /** One line of a version as shown; {@code differs}: it belongs to a field that differs. */
    public record Line(String text, boolean differs) {}

    private ConflictDiff() {}

    /**
     * The differences between this device's content and the server's, in the patch's order.
     *
     * @param mineJson this device's content (a JSON object as text); ignored when {@code mineIsRecord} is false
     * @param mineIsRecord false when this device's edit deletes the record
     * @param serverJson the server's content; ignored when {@code serverIsRecord} is false
     * @param serverIsRecord false when the server deleted the record or has none
     * @return empty when both are the same record content (or both no record)
     */
    public static List<Difference> between(
            String mineJson, boolean mineIsRecord, String serverJson, boolean serverIsRecord) {
        if (!mineIsRecord || !serverIsRecord) {
            return mineIsRecord == serverIsRecord ? List.of() : List.of(new Difference("", Change.WHOLE_RECORD));
        }
        JsonNode mine = parse(mineJson);
        JsonNode server = parse(serverJson);
        if (mine.isMissingNode() || server.isMissingNode()) {
            return mineJson.equals(serverJson) ? List.of() : List.of(new Difference("", Change.CHANGED));
        }
        JsonNode patch =
                JsonDiff.asJson(server, mine, EnumSet.of(DiffFlags.OMIT_MOVE_OPERATION, DiffFlags.OMIT_COPY_OPERATION));
        List<Difference> out = new ArrayList<>();
        for (JsonNode op : patch) {
            String path = op.path("path").asText();
            Change change = switch (op.path("op").asText()) {
                case "add" -> Change.ONLY_MINE;
                case "remove" -> Change.ONLY_SERVER;
                default -> Change.CHANGED;
            };
            out.add(new Difference(path, change));
        }
        return out;
    }

    /** The top-level fields the differences are in, in order; contains {@code ""} when the whole record differs. */
    public static Set<String> fields(List<Difference> differences) {
        Set<String> out = new LinkedHashSet<>();
        differences.forEach(d -> out.add(d.field()));
        return out;
    }

    /**
     * A version as lines, in full: a JSON object indented one field a line (Jackson's pretty printer),
     * each line marked when its top-level field is in {@code differingFields} (all lines when that
     * holds {@code ""}). Text that is not a JSON object comes as its lines, unmarked unless all are.
     */
    public static List<Line> lines(String json, Set<String> differingFields) {
        boolean all = differingFields.contains("");
        JsonNode n = parse(json);
        List<Line> out = new ArrayList<>();
        if (!n.isObject()) {
            for (String l : (n.isMissingNode() ? json : pretty(json)).split("\\R", -1)) {
                out.add(new Line(l, all));
            }
            return out;
        }
        out.add(new Line("{", all));
        Iterator<Map.Entry<String, JsonNode>> fields = n.properties().iterator();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            boolean differs = all || differingFields.contains(f.getKey());
            String[] value = write(f.getValue()).split("\\R", -1);
            for (int i = 0; i < value.length; i++) {
                String text = "  " + (i == 0 ? write(JSON.getNodeFactory().textNode(f.getKey())) + " : " : "")
                        + value[i] + (i == value.length - 1 && fields.hasNext() ? "," : "");
                out.add(new Line(text, differs));
            }
        }
        out.add(new Line("}", all));
        return out;
    }

    /** {@code json} indented, one field a line; the text as it is when it is not JSON. */
    public static String pretty(String json) {
        JsonNode n = parse(json);
        return n.isMissingNode() ? json : write(n);
    }

    private static String write(JsonNode n) {
        try {
            return PRETTY.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a parsed JSON value", e);
        }
    }

    private static JsonNode parse(String json) {
        if (json == null) {
            return MissingNode.getInstance();
        }
        try {
            JsonNode n = JSON.readTree(json);
            return n == null ? MissingNode.getInstance() : n;
        } catch (JsonProcessingException e) {
            return MissingNode.getInstance();
        }
    }

    private static String unescape(String segment) {
        return segment.replace("~1", "/").replace("~0", "~");
    }
}
