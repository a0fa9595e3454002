package org.leasesync.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** The one-line text of a usage error. Stateless. */
final class UsageErrors {

    private UsageErrors() {}

    /**
     * picocli's message, except for a word picocli could not place: on a command with subcommands it is
     * an unknown command ("unknown command 'statsu' (did you mean 'status'?); commands are: sync, …",
     * suggesting picocli's nearest name when it is at most two edits away), on one without it is an argument the command does not take. Unknown options
     * keep picocli's "Unknown option: '--x'".
     */
    static String message(ParameterException ex) {
        if (!(ex instanceof UnmatchedArgumentException u)
                || u.getUnmatched().isEmpty()
                || u.getUnmatched().get(0).startsWith("-")) {
            return ex.getMessage();
        }
        CommandLine line = ex.getCommandLine();
        String word = u.getUnmatched().get(0);
        String name = line.getCommandSpec().qualifiedName();
        List<String> commands = visibleSubcommands(line);
        if (commands.isEmpty()) {
            return "'" + name + "' takes no arguments, only options: unexpected '" + word + "'";
        }
        List<String> near = u.getSuggestions().stream()
                .filter(commands::contains)
                .filter(c -> editDistance(c, word) <= 2)
                .toList();
        return "unknown command '" + word + "'" + (near.isEmpty() ? "" : " (did you mean '" + near.get(0) + "'?)")
                + "; commands are: " + String.join(", ", commands);
    }

    private static List<String> visibleSubcommands(CommandLine line) {
        return line.getSubcommands().entrySet().stream()
                .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden())
                .map(Map.Entry::getKey)
                .toList();
    }

    /** Levenshtein distance: single-character insertions, deletions and substitutions. */
    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(substitution, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
