package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with aligned columns, for terminal output. Not thread-safe. */
final class Table {

    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        this.header = header;
    }

    void row(String... cells) {
        rows.add(cells);
    }

    void print(PrintWriter out, String whenEmpty) {
        if (rows.isEmpty()) {
            out.println(whenEmpty);
            return;
        }
        int[] w = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            w[i] = header[i].length();
            for (String[] r : rows) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        line(out, header, w);
        for (String[] r : rows) {
            line(out, r, w);
        }
    }

    private static void line(PrintWriter out, String[] cells, int[] w) {
        StringBuilder sb = new StringBuilder("  ");
        for (int i = 0; i < cells.length; i++) {
            sb.append(cells[i]);
            if (i < cells.length - 1) {
                sb.append(" ".repeat(w[i] - cells[i].length() + 2));
            }
        }
        out.println(sb.toString().stripTrailing());
    }
}
