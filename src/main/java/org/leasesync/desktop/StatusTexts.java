package org.leasesync.desktop;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.leasesync.lease.Scope;
import org.leasesync.remote.ServerUrls;
import org.leasesync.run.RunView;
import org.leasesync.run.TaskSource;

/**
 * The words the window uses for a {@link KeyStatus}. Pure functions of the snapshot and a time
 * zone (the user's local zone in the app), so every text is unit-tested.
 */
public final class StatusTexts {

    private final DateTimeFormatter clock;
    private final Messages messages;

    /** With the system's format locale for the texts of pause and offline. */
    public StatusTexts(ZoneId zone) {
        this(new Messages(Locale.getDefault(Locale.Category.FORMAT), zone));
    }

    public StatusTexts(Messages messages) {
        this.messages = messages;
        this.clock = Messages.localized(null, java.time.format.FormatStyle.MEDIUM, messages.locale(), messages.zone());
    }

    public Messages messages() {
        return messages;
    }

    /**
     * The main line under {@code overlay}: "Paused until 15:00", "Offline — 3 changes waiting · next
     * try 14:05", else as {@link #headline(KeyStatus)}.
     */
    public String headline(KeyStatus s, CardOverlay overlay) {
        return switch (overlay.shown(s)) {
            case CONFLICTS ->
                messages.get("card.conflicts", overlay.conflicts(s.key().scope()));
            case PAUSED -> pause(overlay.pause().orElseThrow(), overlay.now());
            case OFFLINE ->
                messages.get("card.offline", overlay.pending(s.key().scope()), messages.time(nextTry(s, overlay)));
            case SIGNED_OUT -> messages.get("status.signedOut");
            default -> headline(s);
        };
    }

    /** The second line under {@code overlay}; see {@link #detail(KeyStatus)}. */
    public String detail(KeyStatus s, CardOverlay overlay) {
        StringBuilder sb = new StringBuilder();
        switch (overlay.shown(s)) {
            case CONFLICTS -> {
                sb.append(messages.get("card.conflicts.detail"));
                overlay.pause().ifPresent(p -> sb.append(" · ").append(pause(p, overlay.now())));
                if (overlay.pause().isEmpty() && overlay.offlineNextTry().isPresent()) {
                    sb.append(" · ").append(messages.get("state.OFFLINE"));
                }
                s.lastSuccess().ifPresent(t -> sb.append(" · ").append(messages.get("card.lastSynced", time(t))));
                return sb.toString();
            }
            case PAUSED -> {
                if (s instanceof KeyStatus.Failed f) {
                    sb.append(
                            messages.get("card.paused.failed", f.reason().orElse(messages.get("status.unknownError"))));
                }
                s.lastSuccess().ifPresent(t -> append(sb, messages.get("card.lastSynced", time(t))));
                CardOverlay.Skip skip = overlay.skipped().get(s.key().scope());
                if (skip != null) {
                    append(sb, messages.get("card.paused.skipped", source(skip.source()), messages.time(skip.at())));
                }
                return (sb.length() > 0 ? capitalize(sb.toString()) + messages.get("sentence.end") : "")
                        + messages.get("card.paused.detail");
            }
            case SIGNED_OUT -> {
                // the account's state, found out by another of its cards, or this card's own
                sb.append(s instanceof KeyStatus.SignedOut ? detail(s) : messages.get("detail.signedOut"));
                s.lastSuccess().ifPresent(t -> sb.append(" · ").append(messages.get("card.lastSynced", time(t))));
                return sb.toString();
            }
            case OFFLINE -> {
                sb.append(messages.get("card.offline.detail"));
                s.lastSuccess().ifPresent(t -> sb.append(" · ").append(messages.get("card.lastSynced", time(t))));
                return sb.toString();
            }
            case RUNNING -> {
                String d = detail(s);
                if (overlay.pause().isEmpty()) {
                    return d;
                }
                String note = messages.get(
                        "card.paused.running", pause(overlay.pause().get(), overlay.now()));
                return d.isEmpty() ? note : d + " · " + note;
            }
            default -> {
                return detail(s);
            }
        }
    }

    /** "Paused until 15:00", "Paused until tomorrow, 00:00", or "Paused until you resume". */
    public String pause(Pause p, java.time.Instant now) {
        return p.until()
                .map(u -> messages.get("pause.until", messages.moment(u, now)))
                .orElseGet(() -> messages.get("pause.untilResumed"));
    }

    /** The next try while offline: the next probe, or the key's automatic retry when that comes first. */
    private static java.time.Instant nextTry(KeyStatus s, CardOverlay overlay) {
        java.time.Instant probe = overlay.offlineNextTry().orElseThrow();
        java.util.Optional<java.time.Instant> retry =
                s instanceof KeyStatus.Failed f ? f.retryAt() : java.util.Optional.empty();
        return retry.filter(r -> r.isBefore(probe) && r.isAfter(overlay.now())).orElse(probe);
    }

    /** How long after a successful sync its card says "Synced just now". */
    public static final java.time.Duration JUST_NOW = java.time.Duration.ofMinutes(1);

    /**
     * The main line under {@code overlay} at {@code now}: as {@link #headline(KeyStatus, CardOverlay)},
     * except that an up-to-date key whose last sync ended less than {@link #JUST_NOW} before {@code now}
     * reads "Synced just now · 14:05:12" (a sync that ended within a second still shows that it ran).
     */
    public String headline(KeyStatus s, CardOverlay overlay, Instant now) {
        if (s instanceof KeyStatus.Idle i && overlay.shown(s) == KeyStatus.Kind.IDLE) {
            java.time.Duration ago = java.time.Duration.between(i.lastSynced(), now);
            if (!ago.isNegative() && ago.compareTo(JUST_NOW) < 0) {
                return messages.get("card.syncedJustNow", time(i.lastSynced()));
            }
        }
        return headline(s, overlay);
    }

    /**
     * The progress line of a running card: "Pushed 40 of 120 changes" once the push stage counted the
     * outbox, "Pulled 3 pages · 120 records" while pulling, "Pulling…" while the first page is on its
     * way, "Starting…" before that.
     */
    public String progress(RunView r) {
        org.leasesync.run.RunProgress c = r.counts();
        if (c.pushTotal().isPresent()) {
            int total = Math.max(c.pushTotal().getAsInt(), c.changesPushed());
            return total == 0
                    ? messages.get("card.progress.nothingToPush", c.pagesPulled(), c.recordsPulled())
                    : messages.get("card.progress.push", c.changesPushed(), total);
        }
        if (c.pagesPulled() > 0) {
            return messages.get("card.progress.pull", c.pagesPulled(), c.recordsPulled());
        }
        if (!r.local()) {
            return messages.get("card.progress.otherProcess");
        }
        return messages.get(r.stage().isPresent() ? "card.progress.pulling" : "card.progress.starting");
    }

    /** The main line, e.g. "Up to date · last synced 14:05:12". */
    public String headline(KeyStatus s) {
        if (s instanceof KeyStatus.Idle i) {
            return messages.get("status.idle", time(i.lastSynced()));
        }
        if (s instanceof KeyStatus.Running r) {
            return running(r.run());
        }
        if (s instanceof KeyStatus.Failed f) {
            return messages.get("status.failed", f.reason().orElse(messages.get("status.unknownError")));
        }
        if (s instanceof KeyStatus.NeedsAttention a) {
            return messages.get("status.needsAttention", a.reason().orElse(messages.get("status.stateUnknown")));
        }
        if (s instanceof KeyStatus.Cancelled c) {
            return c.lastSuccess()
                    .map(t -> messages.get("status.cancelled.lastSynced", time(t)))
                    .orElseGet(() -> messages.get("status.cancelled"));
        }
        if (s instanceof KeyStatus.SignedOut) {
            return messages.get("status.signedOut");
        }
        return messages.get("status.neverSynced"); // KeyStatus.NeverSynced, the one case left
    }

    /**
     * The footer under the cards: when syncs start (timer, coming back to the window, Sync now), and the
     * server line.
     */
    public String footer(
            java.time.Duration scheduleInterval, java.time.Duration foregroundMinInterval, ServerUrls servers) {
        java.time.Duration skipWithin = java.time.Duration.ofNanos(
                (long) (scheduleInterval.toNanos() * org.leasesync.sync.RecentSyncGate.SCHEDULE_SHARE));
        return messages.get(
                        "footer.triggers",
                        messages.duration(scheduleInterval),
                        messages.duration(skipWithin),
                        messages.duration(foregroundMinInterval))
                + " " + servers(servers);
    }

    /**
     * The server line of the footer: "Server: URL", or for several "Servers: A, B (the first that answers
     * stays in use)", with at most three URLs spelled out ("… and 5 more").
     */
    public String servers(ServerUrls servers) {
        if (servers.size() == 1) {
            return messages.get("server.one", servers.toString());
        }
        List<String> shown =
                servers.urls().stream().limit(3).map(ServerUrls::display).toList();
        String list = servers.size() > 3
                ? messages.get("server.andMore", String.join(", ", shown), servers.size() - 3)
                : String.join(", ", shown);
        return messages.get("server.many", list);
    }

    private String running(RunView r) {
        String stage =
                r.stage().map(st -> messages.get("stage." + st.wireName())).orElse(messages.get("stage.starting"));
        return messages.get("status.running", stage, time(r.startedAt()), source(r.firstSource()));
    }

    private static final java.util.regex.Pattern PULLED = java.util.regex.Pattern.compile("pulled (\\d+) records?");
    private static final java.util.regex.Pattern PUSHING = java.util.regex.Pattern.compile("pushing (\\d+) changes?");
    private static final java.util.Map<String, String> FIXED_PROGRESS = java.util.Map.of(
            "checking an interrupted push", "progress.checkingPush",
            "resending an unconfirmed push", "progress.resending",
            "waiting for the server to finish a push", "progress.waitingForServer");

    /**
     * A run's progress line (written by the sync layer in English, for logs too) in the window's
     * language: the known forms are translated, any other is shown as it is.
     */
    String progress(String text) {
        java.util.regex.Matcher m = PULLED.matcher(text);
        if (m.matches()) {
            return messages.get("progress.pulled", Long.parseLong(m.group(1)));
        }
        m = PUSHING.matcher(text);
        if (m.matches()) {
            return messages.get("progress.pushing", Long.parseLong(m.group(1)));
        }
        String key = FIXED_PROGRESS.get(text);
        return key == null ? text : messages.get(key);
    }

    /** A trigger source in the user's words ("timer", "Sync now", …). */
    public String source(TaskSource source) {
        return messages.get("source." + source.wireName());
    }

    /**
     * The second line: the join notice, progress, follow-up, the other process, the retry time, or
     * what to do — empty when there is nothing to add.
     */
    public String detail(KeyStatus s) {
        StringBuilder sb = new StringBuilder();
        if (s instanceof KeyStatus.Running running) {
            RunView r = running.run();
            if (running.joinedBy().isPresent()) {
                sb.append(joined(r, running.joinedBy().get()));
            } else if (!r.progress().isBlank() && r.counts().equals(org.leasesync.run.RunProgress.NONE)) {
                // with counts, the progress line under the headline says it
                sb.append(capitalize(progress(r.progress())));
            }
            if (r.followUpQueued()) {
                append(sb, messages.get("detail.followUp"));
            }
            if (!r.local()) {
                append(sb, messages.get("detail.otherProcessRunning"));
            }
            if (running.joinedBy().isPresent()
                    && !r.progress().isBlank()
                    && r.counts().equals(org.leasesync.run.RunProgress.NONE)) {
                append(sb, progress(r.progress()));
            }
        } else if (s instanceof KeyStatus.Failed f) {
            f.otherProcess().ifPresent(o -> sb.append(otherProcess(o)));
            f.serverWaitUntil().ifPresent(t -> append(sb, messages.get("detail.serverWait", time(t))));
            f.retryAt().ifPresent(t -> append(sb, messages.get("detail.retryAt", time(t))));
            f.lastSuccess().ifPresent(t -> append(sb, messages.get("detail.lastSuccess", time(t))));
        } else if (s instanceof KeyStatus.Cancelled c) {
            c.otherProcess().ifPresent(o -> sb.append(otherProcess(o)));
        } else if (s instanceof KeyStatus.SignedOut so) {
            so.otherProcess().ifPresent(o -> sb.append(otherProcess(o)).append(messages.get("sentence.end")));
            sb.append(messages.get("detail.signedOut"));
        } else if (s instanceof KeyStatus.NeedsAttention a) {
            a.otherProcess().ifPresent(o -> sb.append(otherProcess(o)).append(messages.get("sentence.end")));
            a.unconfirmedPush().ifPresent(p -> sb.append(unconfirmed(p)).append(messages.get("sentence.end")));
            sb.append(messages.get("detail.attention"));
        }
        // idle and never synced: nothing to add
        return sb.toString();
    }

    /**
     * "From another process — leasesync sync (pid 4242) against http://127.0.0.1:9/, not this window's
     * server": where a run shown on the card came from when this window did not make it.
     */
    String otherProcess(KeyStatus.OtherProcess o) {
        String program = o.program().orElse("leasesync");
        String who = o.pid().isPresent()
                ? messages.get("other.pid", program, String.valueOf(o.pid().getAsLong()))
                : program;
        if (o.server().isEmpty()) {
            return messages.get("other.process", who);
        }
        return messages.get(
                o.sameServer() ? "other.process.sameServer" : "other.process.otherServer",
                who,
                o.server().get());
    }

    /** Most change ids named in the detail line; the rest are counted. */
    static final int CHANGE_IDS_SHOWN = 3;

    /** "Unconfirmed push 6f1c…: changes c1, c2, c3 and 4 more" — with the full idempotency key. */
    String unconfirmed(KeyStatus.UnconfirmedPush p) {
        List<String> ids = p.changeIds();
        String shown = String.join(", ", ids.subList(0, Math.min(CHANGE_IDS_SHOWN, ids.size())));
        if (ids.size() > CHANGE_IDS_SHOWN) {
            shown = messages.get("server.andMore", shown, ids.size() - CHANGE_IDS_SHOWN);
        }
        return ids.isEmpty()
                ? messages.get("unconfirmed.none", p.idempotencyKey())
                : messages.get("unconfirmed", p.idempotencyKey(), ids.size(), shown);
    }

    /** "Already syncing — started 14:03:07 by schedule; your request joined it". */
    public String joined(RunView r) {
        return joined(r, TaskSource.MANUAL);
    }

    /**
     * The join notice for the trigger that joined: the user's click ("your request joined it"), the
     * timer ("the timer's sync joined it") or coming back to the window.
     */
    public String joined(RunView r, TaskSource by) {
        String key = switch (by) {
            case SCHEDULE -> "detail.joined.schedule";
            case FOREGROUND -> "detail.joined.foreground";
            default -> "detail.joined";
        };
        return messages.get(key, time(r.startedAt()), sources(r));
    }

    /** A scope's title on its card, in the language of {@code messages}. */
    public static String title(Scope scope, Messages messages) {
        return messages.get("scope." + scope.wireName());
    }

    /** A scope's title on its card. */
    public String titleOf(Scope scope) {
        return title(scope, messages);
    }

    /** The local time of day, HH:mm:ss. */
    public String time(Instant i) {
        return clock.format(i);
    }

    private String sources(RunView r) {
        return source(r.firstSource());
    }

    static String sourceList(RunView r) {
        StringBuilder sb = new StringBuilder(r.firstSource().wireName());
        for (TaskSource m : r.mergedSources()) {
            sb.append(", +").append(m.wireName());
        }
        return sb.toString();
    }

    private static void append(StringBuilder sb, String s) {
        if (sb.length() > 0) {
            sb.append(" · ");
        }
        sb.append(s);
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
