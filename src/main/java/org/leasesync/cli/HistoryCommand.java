package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.lease.TaskKey;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.sync.TriggerSkip;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync history --key 'alice|course_sync'}: a key's runs, newest first, each preceded by
 * the timer triggers skipped because it had just synced; the triggers that joined a run are counted
 * per source ("joined by schedule × 12, foreground × 3"). Read-only.
 */
@Command(
        name = "history",
        mixinStandardHelpOptions = true,
        description = "Show a task key's runs, newest first: sources (first and merged), owner, epoch, stages "
                + "with times, result and error; and, above each run, the timer triggers skipped because the key "
                + "had just synced.")
public final class HistoryCommand implements Callable<Integer> {

    @Mixin
    DataDirMixin dataDir;

    @Option(
            names = "--key",
            required = true,
            paramLabel = "USER|SCOPE",
            description = "Task key, e.g. 'alice|course_sync' (quote it: '|' is a shell pipe).")
    String key;

    @Option(names = "--limit", defaultValue = "20", description = "At most this many runs (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TaskKey taskKey;
        try {
            taskKey = TaskKey.parse(key);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "invalid --key: " + e.getMessage());
        }
        if (limit < 1 || limit > 10_000) {
            throw new ParameterException(spec.commandLine(), "--limit must be 1..10000, got " + limit);
        }
        PrintWriter out = spec.commandLine().getOut();
        Path dir = dataDir.resolve();
        List<Views.RunView> runs;
        Map<String, List<TriggerSkip>> skipped;
        if (!DataDirectory.existsIn(dir)) {
            runs = List.of();
            skipped = Map.of();
        } else {
            try (LocalStore store = LocalStore.openFile(dir, dataDir.openTimeout())) {
                runs = store.history().history(taskKey, limit).stream()
                        .map(Views.RunView::of)
                        .toList();
                // at most one skip per window and run: ten windows' worth is plenty
                skipped = TriggerSkip.byRun(new JdbcRecentSyncs(store.database()).skips(taskKey, 10 * limit));
            }
        }
        if (json) {
            List<Views.SkipView> skips = new ArrayList<>();
            runs.forEach(r -> skipped.getOrDefault(r.runId(), List.of()).forEach(s -> skips.add(Views.SkipView.of(s))));
            out.println(Json.write(java.util.Map.of("key", taskKey.asString(), "runs", runs, "skipped", skips)));
            return 0;
        }
        if (runs.isEmpty()) {
            out.println("no runs of " + taskKey + " in " + dir);
            return 0;
        }
        for (var r : runs) {
            for (TriggerSkip s : skipped.getOrDefault(r.runId(), List.of())) {
                out.println(Views.local(s.at()) + "  skipped  " + s.source().wireName() + " trigger");
                out.println("    owner " + s.owner() + "  — " + s.reason());
            }
            String sources = r.firstSource()
                    + (r.mergedSources().isEmpty() ? "" : " (joined by " + counts(r.mergedSourceCounts()) + ")");
            out.println(Views.local(Instant.parse(r.startedAt())) + "  " + r.status() + "  epoch " + r.epoch()
                    + "  started by " + sources);
            out.println("    run " + r.runId() + "  owner " + r.owner());
            if (r.recovery() != null) {
                out.println("    recovery: " + r.recovery());
            }
            StringBuilder st = new StringBuilder("    stages:");
            for (var s : r.stages()) {
                st.append(' ')
                        .append(s.stage())
                        .append(" @ ")
                        .append(Views.local(Instant.parse(s.at())))
                        .append(';');
            }
            out.println(st);
            out.println(
                    "    ended: " + (r.endedAt() == null ? "(still running)" : Views.local(Instant.parse(r.endedAt())))
                            + (r.error() == null ? "" : "  — " + r.error()));
            if (r.note() != null) {
                out.println("    note: " + r.note());
            }
        }
        return 0;
    }

    /** "schedule × 12, foreground × 3" (see {@link org.leasesync.run.SourceCounts#text()}). */
    private static String counts(Map<String, Integer> bySource) {
        return bySource.entrySet().stream()
                .map(e -> e.getKey() + " × " + e.getValue())
                .collect(java.util.stream.Collectors.joining(", "));
    }
}
