package org.leasesync.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Collects benchmark figures as {@code name value unit} lines. A figure measured in several rounds
 * keeps every sample and reports the median. Ratios are printed as {@code ratio.NAME value x}.
 *
 * <p>Not thread-safe: the runner records from its own thread.
 */
final class Figures {

    private record Figure(String unit, List<Double> samples) {}

    private final Map<String, Figure> figures = new LinkedHashMap<>();
    private final PrintStream out;

    Figures(PrintStream out) {
        this.out = out;
    }

    /** Adds one sample (one round) of a figure. */
    void sample(String name, double value, String unit) {
        figures.computeIfAbsent(name, n -> new Figure(unit, new ArrayList<>()))
                .samples()
                .add(value);
    }

    /** The median of a figure's samples; NaN if it has none. */
    double median(String name) {
        Figure f = figures.get(name);
        return f == null ? Double.NaN : median(f.samples());
    }

    /** A figure's samples in the order they were taken (empty if none). */
    List<Double> samples(String name) {
        Figure f = figures.get(name);
        return f == null ? List.of() : List.copyOf(f.samples());
    }

    /** Whether a figure has at least one sample. */
    boolean has(String name) {
        return figures.containsKey(name);
    }

    /** Prints the median of each named figure, one line each. */
    void print(String... names) {
        for (String name : names) {
            Figure f = figures.get(name);
            if (f != null) {
                out.println(name + " " + format(median(f.samples())) + " " + f.unit());
            }
        }
    }

    /** Prints every figure whose name starts with {@code prefix}. */
    void printPrefix(String prefix) {
        figures.keySet().stream().filter(n -> n.startsWith(prefix)).forEach(this::print);
    }

    /** Prints and records {@code ratio.NAME value x}. */
    double ratio(String name, double value) {
        out.println("ratio." + name + " " + String.format(Locale.ROOT, "%.2f", value) + " x");
        out.flush();
        return value;
    }

    /** Prints a free-form remark line, prefixed with {@code #} so parsers skip it. */
    void note(String text) {
        out.println("# " + text);
        out.flush();
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static String format(double v) {
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
