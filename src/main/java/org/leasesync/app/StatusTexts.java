package org.leasesync.app;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.leasesync.registry.RunView;
import org.leasesync.registry.Scope;
import org.leasesync.registry.TaskSource;
import org.leasesync.remote.ServerUrls;

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
        this.clock = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(messages.zone());
    }

    public Messages messages() {
        return messages;
    }

    /**
     * The main line under {@code overlay}: "Paused until 15:00", "Offline — 3 changes waiting · next
     * try 14:05", else as {@link #headline(KeyStatus)}.
     */
    public String headline(KeyStatus s, CardOverlay overlay) {
        return switch (overlay.shown(s.kind())) {
            case PAUSED -> pause(overlay.pause().orElseThrow(), overlay.now());
            case OFFLINE -> messages.get("card.offline", overlay.pending(s.key().scope()),
                    messages.time(nextTry(s, overlay)));
            default -> headline(s);
        };
    }

    /** The second line under {@code overlay}; see {@link #detail(KeyStatus)}. */
    public String detail(KeyStatus s, CardOverlay overlay) {
        StringBuilder sb = new StringBuilder();
        switch (overlay.shown(s.kind())) {
            case PAUSED -> {
                if (s.kind() == KeyStatus.Kind.FAILED) {
                    sb.append(messages.get("card.paused.failed", s.reason().orElse("unknown error")));
                }
                s.lastSuccess().ifPresent(t -> append(sb, messages.get("card.lastSynced", time(t))));
                CardOverlay.Skip skip = overlay.skipped().get(s.key().scope());
                if (skip != null) {
                    append(sb, messages.get("card.paused.skipped", skip.source().wireName(), messages.time(skip.at())));
                }
                return (sb.length() > 0 ? capitalize(sb.toString()) + ". " : "") + messages.get("card.paused.detail");
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
                String note = messages.get("card.paused.running", pause(overlay.pause().get(), overlay.now()));
                return d.isEmpty() ? note : d + " · " + note;
            }
            default -> {
                return detail(s);
            }
        }
    }

    /** "Paused until 15:00", "Paused until tomorrow, 00:00", or "Paused until you resume". */
    public String pause(Pause p, java.time.Instant now) {
        return p.until().map(u -> messages.get("pause.until", messages.moment(u, now)))
                .orElseGet(() -> messages.get("pause.untilResumed"));
    }

    /** The next try while offline: the next probe, or the key's automatic retry when that comes first. */
    private static java.time.Instant nextTry(KeyStatus s, CardOverlay overlay) {
        java.time.Instant probe = overlay.offlineNextTry().orElseThrow();
        return s.retryAt().filter(r -> r.isBefore(probe) && r.isAfter(overlay.now())).orElse(probe);
    }

    /** How long after a successful sync its card says "Synced just now". */
    public static final java.time.Duration JUST_NOW = java.time.Duration.ofMinutes(1);

    /**
     * The main line under {@code overlay} at {@code now}: as {@link #headline(KeyStatus, CardOverlay)},
     * except that an up-to-date key whose last sync ended less than {@link #JUST_NOW} before {@code now}
     * reads "Synced just now · 14:05:12" (a sync that ended within a second still shows that it ran).
     */
    public String headline(KeyStatus s, CardOverlay overlay, Instant now) {
        if (overlay.shown(s.kind()) == KeyStatus.Kind.IDLE && s.lastSuccess().isPresent()) {
            java.time.Duration ago = java.time.Duration.between(s.lastSuccess().get(), now);
            if (!ago.isNegative() && ago.compareTo(JUST_NOW) < 0) {
                return messages.get("card.syncedJustNow", time(s.lastSuccess().get()));
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
        org.leasesync.registry.RunProgress c = r.counts();
        if (c.pushTotal().isPresent()) {
            int total = Math.max(c.pushTotal().getAsInt(), c.changesPushed());
            return total == 0 ? messages.get("card.progress.nothingToPush", c.pagesPulled(), c.recordsPulled())
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
        return switch (s.kind()) {
            case NEVER_SYNCED -> "Not synced yet";
            case IDLE -> "Up to date · last synced " + time(s.lastSuccess().orElseThrow());
            case RUNNING -> running(s.run().orElseThrow());
            case FAILED -> "Last sync failed: " + s.reason().orElse("unknown error") + " — Retry";
            case NEEDS_ATTENTION -> "Needs attention: " + s.reason().orElse("the state of the last sync is unknown");
            case CANCELLED -> "Sync cancelled" + s.lastSuccess().map(t -> " · last synced " + time(t)).orElse("");
            // shown only over a stored state (headline(KeyStatus, CardOverlay)); never published alone
            case PAUSED, OFFLINE -> s.lastSuccess().map(t -> "Last synced " + time(t)).orElse("Not synced yet");
        };
    }

    /**
     * The server line of the footer: "Server: URL", or for several "Servers: A, B (the first that answers
     * stays in use)", with at most three URLs spelled out ("… and 5 more").
     */
    public static String servers(ServerUrls servers) {
        if (servers.size() == 1) {
            return "Server: " + servers;
        }
        List<String> shown = servers.urls().stream().limit(3).map(ServerUrls::display).toList();
        return "Servers: " + String.join(", ", shown) + (servers.size() > 3 ? " and " + (servers.size() - 3) + " more" : "")
                + " (the first that answers stays in use)";
    }

    private String running(RunView r) {
        String stage = r.stage().map(st -> st.wireName()).orElse("starting");
        return "Syncing · " + stage + " · started " + time(r.startedAt()) + " (" + r.firstSource().wireName() + ")";
    }

    /**
     * The second line: the join notice, progress, follow-up, the other process, the retry time, or
     * what to do — empty when there is nothing to add.
     */
    public String detail(KeyStatus s) {
        StringBuilder sb = new StringBuilder();
        switch (s.kind()) {
            case RUNNING -> {
                RunView r = s.run().orElseThrow();
                if (s.joinedByUser()) {
                    sb.append(joined(r));
                } else if (!r.progress().isBlank() && r.counts().equals(org.leasesync.registry.RunProgress.NONE)) {
                    // with counts, the progress line under the headline says it
                    sb.append(capitalize(r.progress()));
                }
                if (r.followUpQueued()) {
                    append(sb, "another sync will follow");
                }
                if (!r.local()) {
                    append(sb, "running in another leasesync process");
                }
                if (s.joinedByUser() && !r.progress().isBlank()
                        && r.counts().equals(org.leasesync.registry.RunProgress.NONE)) {
                    append(sb, r.progress());
                }
            }
            case FAILED -> {
                s.otherProcess().ifPresent(o -> sb.append(otherProcess(o)));
                s.retryAt().ifPresent(t -> append(sb, "Retrying automatically at " + time(t)));
                s.lastSuccess().ifPresent(t -> append(sb, "last successful sync " + time(t)));
            }
            case CANCELLED -> s.otherProcess().ifPresent(o -> sb.append(otherProcess(o)));
            case NEEDS_ATTENTION -> {
                s.otherProcess().ifPresent(o -> sb.append(otherProcess(o)).append(". "));
                s.unconfirmedPush().ifPresent(p -> sb.append(unconfirmed(p)).append(". "));
                sb.append("Nothing is retried automatically. Check again once the server answers, "
                        + "or discard and resend (the server applies each change at most once).");
            }
            default -> {
                // nothing to add
            }
        }
        return sb.toString();
    }

    /**
     * "From another process — leasesync sync (pid 4242) against http://127.0.0.1:9/, not this window's
     * server": where a run shown on the card came from when this window did not make it.
     */
    static String otherProcess(KeyStatus.OtherProcess o) {
        StringBuilder sb = new StringBuilder("From another process — ");
        sb.append(o.program().orElse("leasesync"));
        o.pid().ifPresent(pid -> sb.append(" (pid ").append(pid).append(')'));
        if (o.server().isPresent()) {
            sb.append(" against ").append(o.server().get())
                    .append(o.sameServer() ? ", this window's server" : ", not this window's server");
        }
        return sb.toString();
    }

    /** Most change ids named in the detail line; the rest are counted. */
    static final int CHANGE_IDS_SHOWN = 3;

    /** "Unconfirmed push 6f1c…: changes c1, c2, c3 and 4 more" — with the full idempotency key. */
    static String unconfirmed(KeyStatus.UnconfirmedPush p) {
        List<String> ids = p.changeIds();
        String shown = String.join(", ", ids.subList(0, Math.min(CHANGE_IDS_SHOWN, ids.size())));
        String more = ids.size() > CHANGE_IDS_SHOWN ? " and " + (ids.size() - CHANGE_IDS_SHOWN) + " more" : "";
        return "Unconfirmed push (idempotency key " + p.idempotencyKey() + "): " + ids.size() + " change"
                + (ids.size() == 1 ? "" : "s") + (ids.isEmpty() ? "" : " — " + shown + more);
    }

    /** "Already syncing — started 14:03:07 by schedule; your request joined it". */
    public String joined(RunView r) {
        return "Already syncing — started " + time(r.startedAt()) + " by " + sources(r) + "; your request joined it";
    }

    /** A scope's title on its card. */
    public static String title(Scope scope) {
        return switch (scope) {
            case COURSE_SYNC -> "Courses";
            case MESSAGE_SYNC -> "Messages";
            case BACKUP -> "Settings backup";
        };
    }

    /** The local time of day, HH:mm:ss. */
    public String time(Instant i) {
        return clock.format(i);
    }

    private static String sources(RunView r) {
        return r.firstSource().wireName();
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
