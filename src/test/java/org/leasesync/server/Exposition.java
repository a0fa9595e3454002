package org.leasesync.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of a Prometheus text exposition, by a line check: each line that is not a comment
 * is {@code name{label="value",...} number}. Enough to find a sample by name and labels; not a
 * full parser (no escapes beyond {@code \"}, no timestamps needed).
 */
public final class Exposition {

    /** One sample line. */
    record Sample(String name, Map<String, String> labels, double value) {
        /** {@code name{a="1",b="2"}}: the series' identity. */
        String series() {
            return name + labels;
        }
    }

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    private final List<Sample> samples = new ArrayList<>();
    private final String text;

    public Exposition(String text) {
        this.text = text;
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                throw new AssertionError("not a sample line: '" + line + "'");
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                }
                if (end != m.group(2).length()) {
                    throw new AssertionError("unreadable labels in '" + line + "'");
                }
            }
            samples.add(
                    new Sample(m.group(1), labels, Double.parseDouble(m.group(3).replace("+Inf", "Infinity"))));
        }
    }

    /** The samples named {@code name} whose labels include all of {@code labels} (name, value, ...). */
    public List<Sample> find(String name, String... labels) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.name().equals(name) && hasAll(s.labels(), labels)) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * The value of the one sample named {@code name} with these labels (name, value, ...).
     *
     * @throws AssertionError if there is none or more than one
     */
    public double value(String name, String... labels) {
        List<Sample> found = find(name, labels);
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " samples " + name + " " + List.of(labels) + " in:\n" + text);
        }
        return found.get(0).value();
    }

    /** The series (name and labels) of every sample whose name starts with {@code prefix}. */
    Set<String> series(String prefix) {
        Set<String> out = new TreeSet<>();
        for (Sample s : samples) {
            if (s.name().startsWith(prefix)) {
                out.add(s.series());
            }
        }
        return out;
    }

    /** The whole text, for messages. */
    String text() {
        return text;
    }

    private static boolean hasAll(Map<String, String> have, String... want) {
        for (int i = 0; i + 1 < want.length; i += 2) {
            if (!want[i + 1].equals(have.get(want[i]))) {
                return false;
            }
        }
        return true;
    }
}
