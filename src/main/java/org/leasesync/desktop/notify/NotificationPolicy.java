package org.leasesync.desktop.notify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.TaskKey;

/**
 * When the user hears about a key without looking: once per episode, never on a success. An
 * episode is
 * <ul>
 *   <li>a key failing {@value #FAILURES_IN_A_ROW} times in a row (it ends with the next run that
 *       does not fail; failures while the server cannot be reached do not count towards a
 *       notification — the tray shows offline instead);</li>
 *   <li>a key needing attention (it ends when the key no longer does);</li>
 *   <li>a key signed out: the server refused the session (it ends with the key's next run that is not
 *       signed out; a signed-out key never counts as failing);</li>
 *   <li>conflicts appearing that were not there at the previous look (the conflicts present when the
 *       app starts are the baseline).</li>
 * </ul>
 *
 * <p>Pure: it sees {@link Observation}s and answers with the {@link Notice}s to show. Not
 * thread-safe: one thread feeds it.
 */
public final class NotificationPolicy {

    /** Failed runs in a row that make a notification. */
    public static final int FAILURES_IN_A_ROW = 3;

    /**
     * What the app knows about a key at one look.
     *
     * @param key the task key
     * @param failuresInARow failed runs since the last run that did not fail (newest first)
     * @param lastError the newest failure's reason
     * @param attention the reason, when the key needs attention (blank when none was recorded)
     * @param conflicts conflict change id → record id
     * @param signedOut the reason, when the key's last run ended signed out
     */
    public record Observation(
            TaskKey key,
            int failuresInARow,
            Optional<String> lastError,
            Optional<String> attention,
            Map<String, String> conflicts,
            Optional<String> signedOut) {

        /** Not signed out. */
        public Observation(
                TaskKey key,
                int failuresInARow,
                Optional<String> lastError,
                Optional<String> attention,
                Map<String, String> conflicts) {
            this(key, failuresInARow, lastError, attention, conflicts, Optional.empty());
        }

        public Observation {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(signedOut, "signedOut");
            if (failuresInARow < 0) {
                throw new IllegalArgumentException("failuresInARow must be >= 0, got " + failuresInARow);
            }
            conflicts = Map.copyOf(conflicts);
        }
    }

    /**
     * A notification to show.
     *
     * @param key the key it is about (clicking it opens the window at this key's card)
     * @param kind why
     * @param title the first line
     * @param body the text
     * @param count failures in a row, or new conflicts
     * @param detail the last error, the attention reason, or the conflicting record ids
     */
    public record Notice(TaskKey key, Kind kind, String title, String body, int count, String detail) {
        public enum Kind {
            FAILING,
            NEEDS_ATTENTION,
            CONFLICT,
            SIGNED_OUT
        }

        public Notice {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(title, "title");
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(detail, "detail");
        }
    }

    private static final class Episodes {
        boolean failingNotified;
        boolean attentionNotified;
        boolean signedOutNotified;
        Set<String> knownConflicts;
    }

    private final Messages messages;
    private final Map<TaskKey, Episodes> episodes = new HashMap<>();

    public NotificationPolicy(Messages messages) {
        this.messages = Objects.requireNonNull(messages);
    }

    /**
     * @param offline the server cannot be reached at the moment
     * @return the notifications this look starts (usually none)
     */
    public List<Notice> observe(Observation o, boolean offline) {
        Episodes e = episodes.computeIfAbsent(o.key(), k -> new Episodes());
        List<Notice> out = new ArrayList<>();
        String title = StatusTexts.title(o.key().scope(), messages);
        if (o.failuresInARow() == 0) {
            e.failingNotified = false;
        } else if (o.failuresInARow() >= FAILURES_IN_A_ROW && !e.failingNotified && !offline) {
            e.failingNotified = true;
            String error = o.lastError().orElse(messages.get("status.unknownError"));
            out.add(new Notice(
                    o.key(),
                    Notice.Kind.FAILING,
                    messages.get("notify.failing.title", title),
                    messages.get("notify.failing.body", title, o.failuresInARow(), error),
                    o.failuresInARow(),
                    error));
        }
        if (o.attention().isEmpty()) {
            e.attentionNotified = false;
        } else if (!e.attentionNotified) {
            e.attentionNotified = true;
            String reason = o.attention().get().isBlank()
                    ? messages.get("status.stateUnknown")
                    : o.attention().get();
            out.add(new Notice(
                    o.key(),
                    Notice.Kind.NEEDS_ATTENTION,
                    messages.get("notify.attention.title", title),
                    messages.get("notify.attention.body", reason),
                    1,
                    reason));
        }
        if (o.signedOut().isEmpty()) {
            e.signedOutNotified = false;
        } else if (!e.signedOutNotified) {
            e.signedOutNotified = true;
            out.add(new Notice(
                    o.key(),
                    Notice.Kind.SIGNED_OUT,
                    messages.get("notify.signedOut.title", title),
                    messages.get("notify.signedOut.body"),
                    1,
                    o.signedOut().get()));
        }
        Set<String> now = o.conflicts().keySet();
        if (e.knownConflicts != null) {
            Set<String> records = new TreeSet<>();
            int added = 0;
            for (String changeId : now) {
                if (!e.knownConflicts.contains(changeId)) {
                    added++;
                    records.add(o.conflicts().get(changeId));
                }
            }
            if (added > 0) {
                String ids = String.join(", ", records);
                out.add(new Notice(
                        o.key(),
                        Notice.Kind.CONFLICT,
                        messages.get("notify.conflict.title", title, added),
                        messages.get("notify.conflict.body", title, added, ids),
                        added,
                        ids));
            }
        }
        e.knownConflicts = Set.copyOf(now);
        return out;
    }

    /**
     * One notification for several keys with the same kind of trouble (a failing server makes every
     * key fail: the user gets one notification naming them all, not one each). The newest notice's
     * detail is shown; the keys are named in the order of the cards, and clicking opens the first
     * one's card.
     *
     * @param notices of one kind, oldest first, at most one per key
     * @throws IllegalArgumentException if empty or of several kinds
     */
    public Notice merge(List<Notice> notices) {
        if (notices.isEmpty() || notices.stream().map(Notice::kind).distinct().count() != 1) {
            throw new IllegalArgumentException("merge needs notices of one kind, got " + notices);
        }
        if (notices.size() == 1) {
            return notices.get(0);
        }
        Notice last = notices.get(notices.size() - 1);
        notices = notices.stream()
                .sorted(java.util.Comparator.comparing(n -> n.key().scope()))
                .toList();
        Notice first = notices.get(0);
        String titles = String.join(
                ", ",
                notices.stream()
                        .map(n -> StatusTexts.title(n.key().scope(), messages))
                        .toList());
        int count = notices.stream().mapToInt(Notice::count).min().orElse(0);
        return switch (first.kind()) {
            case FAILING ->
                new Notice(
                        first.key(),
                        first.kind(),
                        messages.get("notify.failing.title", titles),
                        messages.get("notify.failing.bodyMany", titles, count, last.detail()),
                        count,
                        last.detail());
            case NEEDS_ATTENTION ->
                new Notice(
                        first.key(),
                        first.kind(),
                        messages.get("notify.attention.titleMany", titles),
                        messages.get("notify.attention.body", last.detail()),
                        1,
                        last.detail());
            case SIGNED_OUT ->
                new Notice(
                        first.key(),
                        first.kind(),
                        messages.get("notify.signedOut.title", titles),
                        messages.get("notify.signedOut.body"),
                        1,
                        last.detail());
            case CONFLICT -> {
                int total = notices.stream().mapToInt(Notice::count).sum();
                String ids =
                        String.join(", ", notices.stream().map(Notice::detail).toList());
                yield new Notice(
                        first.key(),
                        first.kind(),
                        messages.get("notify.conflict.title", titles, total),
                        messages.get("notify.conflict.body", titles, total, ids),
                        total,
                        ids);
            }
        };
    }
}
