package org.leasesync.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The layout of {@code --help}: option descriptions wrap at spaces only, so a path or URL in them
 * ({@code ~/.local/share/leasesync}, {@code http://127.0.0.1:8787}) is never cut in two. picocli's
 * own wrapping asks {@link java.text.BreakIterator#getLineInstance()}, which also breaks after a
 * {@code .} or {@code :} followed by a letter or digit. A word longer than the whole column is left
 * to picocli (it has to be cut somewhere). The width is the terminal's when picocli can tell
 * ({@code usageHelpAutoWidth}), else 80 columns.
 *
 * <p>Installed through picocli's {@link CommandLine#setHelpFactory help factory}; stateless.
 */
final class HelpLayout {

    private HelpLayout() {}

    /** Uses this layout for {@code line} and every subcommand it has now. */
    static void install(CommandLine line) {
        line.setUsageHelpAutoWidth(true);
        line.setHelpFactory(SpaceWrappingHelp::new);
    }

    private static final class SpaceWrappingHelp extends Help {

        SpaceWrappingHelp(CommandSpec spec, ColorScheme scheme) {
            super(spec, scheme);
        }

        @Override
        public Layout createDefaultLayout(
                List<OptionSpec> options, List<PositionalParamSpec> positionals, ColorScheme scheme) {
            Layout base = super.createDefaultLayout(options, positionals, scheme);
            return new SpaceWrappingLayout(scheme, base.textTable(), base.optionRenderer(), base.parameterRenderer());
        }
    }

    private static final class SpaceWrappingLayout extends Help.Layout {

        /** Continuation lines are indented like picocli's own. */
        private static final String CONTINUATION = "  ";

        SpaceWrappingLayout(
                ColorScheme scheme,
                Help.TextTable table,
                Help.IOptionRenderer options,
                Help.IParameterRenderer parameters) {
            super(scheme, table, options, parameters);
        }

        /** Pre-wraps the last (description) column at spaces into extra rows, then lays them out as usual. */
        @Override
        public void layout(ArgSpec arg, Text[][] rows) {
            Help.Column[] columns = table.columns();
            Help.Column description = columns[columns.length - 1];
            int width = description.width - description.indent - 1;
            List<Text[]> out = new ArrayList<>();
            for (Text[] row : rows) {
                if (row.length != columns.length) {
                    out.add(row);
                    continue;
                }
                Text text = row[row.length - 1];
                List<int[]> lines = wrap(text.plainString(), width, width - CONTINUATION.length());
                for (int i = 0; i < lines.size(); i++) {
                    Text[] r = new Text[row.length];
                    for (int c = 0; c < row.length - 1; c++) {
                        r[c] = i == 0 ? row[c] : colorScheme.text("");
                    }
                    Text line = text.substring(lines.get(i)[0], lines.get(i)[1]); // keeps styles, parses nothing
                    r[row.length - 1] =
                            i == 0 ? line : colorScheme.text(CONTINUATION).concat(line);
                    out.add(r);
                }
            }
            super.layout(arg, out.toArray(Text[][]::new));
        }
    }

    /**
     * Splits {@code text} into lines at spaces: the first of at most {@code firstWidth} characters, the
     * others of at most {@code width}; a word longer than that gets a line of its own.
     *
     * @return each line as [start, end) indexes into {@code text}, without the spaces between lines;
     *     one empty line for empty text
     */
    static List<int[]> wrap(String text, int firstWidth, int width) {
        List<int[]> lines = new ArrayList<>();
        int start = -1;
        int end = -1;
        int i = 0;
        while (i < text.length()) {
            if (text.charAt(i) == ' ') {
                i++;
                continue;
            }
            int wordEnd = text.indexOf(' ', i);
            wordEnd = wordEnd < 0 ? text.length() : wordEnd;
            if (start >= 0 && wordEnd - start > (lines.isEmpty() ? firstWidth : width)) {
                lines.add(new int[] {start, end});
                start = -1;
            }
            if (start < 0) {
                start = i;
            }
            end = wordEnd;
            i = wordEnd;
        }
        lines.add(start < 0 ? new int[] {0, 0} : new int[] {start, end});
        return lines;
    }
}
