package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunView;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/** The card texts of pause and offline, in the locale's time format. */
class BackgroundTextsTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final Instant NOW = Instant.parse("2026-11-30T14:03:20Z");
    static final ZoneId LONDON = ZoneId.of("Europe/London");
    final StatusTexts uk = new StatusTexts(new Messages(Locale.UK, LONDON));
    final StatusTexts us = new StatusTexts(new Messages(Locale.US, LONDON));

    static KeyStatus idle() {
        return KeyStatus.idle(KEY, Optional.of(Instant.parse("2026-11-30T13:05:12Z")));
    }

    static CardOverlay paused(Pause p) {
        return CardOverlay.none(NOW).withPause(Optional.of(p), NOW);
    }

    @Test
    void pausedCardsSayUntilWhenInTheLocalesTimeFormat() {
        CardOverlay o = paused(new Pause(Optional.of(Instant.parse("2026-11-30T15:00:00Z"))));
        assertThat(o.shown(KeyStatus.Kind.IDLE)).isEqualTo(KeyStatus.Kind.PAUSED);
        assertThat(uk.headline(idle(), o)).isEqualTo("Paused until 15:00");
        assertThat(us.headline(idle(), o)).isEqualTo("Paused until 3:00 PM");
        assertThat(uk.detail(idle(), o))
                .isEqualTo(
                        "Last synced 13:05:12. Timer and window syncs are skipped while paused; Sync now still syncs.");
    }

    @Test
    void aPauseEndingTomorrowOrLaterSaysSoAndUntilResumedHasNoTime() {
        assertThat(uk.headline(idle(), paused(new Pause(Optional.of(Instant.parse("2026-12-01T00:00:00Z"))))))
                .isEqualTo("Paused until tomorrow, 00:00");
        assertThat(uk.headline(idle(), paused(new Pause(Optional.of(Instant.parse("2026-12-03T09:30:00Z"))))))
                .isEqualTo("Paused until 3 Dec 2026, 09:30");
        assertThat(uk.headline(idle(), paused(Pause.untilResumed()))).isEqualTo("Paused until you resume");
    }

    @Test
    void aSkippedTriggerIsShownOnThePausedCard() {
        CardOverlay o = paused(Pause.untilResumed())
                .withSkip(
                        Scope.COURSE_SYNC,
                        new CardOverlay.Skip(TaskSource.SCHEDULE, Instant.parse("2026-11-30T14:05:00Z")));
        assertThat(uk.detail(idle(), o))
                .isEqualTo("Last synced 13:05:12 · skipped: schedule sync at 14:05. "
                        + "Timer and window syncs are skipped while paused; Sync now still syncs.");
    }

    @Test
    void aPausedCardWhoseLastSyncFailedStillSaysSo() {
        KeyStatus failed = new KeyStatus.Failed(
                KEY, Optional.empty(), Optional.of("the sync server is busy (HTTP 429)"), Optional.empty());
        assertThat(uk.detail(failed, paused(Pause.untilResumed())))
                .startsWith("Last sync failed: the sync server is busy (HTTP 429). Timer and window syncs are skipped");
    }

    @Test
    void aRunningCardWhilePausedSaysSyncIsPausedAndWhyItRuns() {
        RunView r = new RunView(
                "r1",
                KEY,
                3,
                "me",
                TaskSource.MANUAL,
                java.util.List.of(),
                Instant.parse("2026-11-30T14:03:07Z"),
                Optional.of(Stage.PULLING),
                "",
                true,
                false);
        KeyStatus running = new KeyStatus.Running(KEY, Optional.empty(), r, false);
        CardOverlay o = paused(new Pause(Optional.of(Instant.parse("2026-11-30T15:00:00Z"))));
        assertThat(o.shown(KeyStatus.Kind.RUNNING)).isEqualTo(KeyStatus.Kind.RUNNING);
        assertThat(uk.headline(running, o)).isEqualTo("Syncing · pulling · started 14:03:07 (manual)");
        assertThat(uk.detail(running, o))
                .isEqualTo("Sync is paused (Paused until 15:00); this sync runs because you asked for it.");
    }

    @Test
    void offlineCardsCountTheChangesWaitingAndSayTheNextTry() {
        Instant next = Instant.parse("2026-11-30T14:05:00Z");
        CardOverlay o = CardOverlay.none(NOW).withOffline(Optional.of(next), Map.of(Scope.COURSE_SYNC, 3), NOW);
        KeyStatus failed = new KeyStatus.Failed(
                KEY,
                Optional.of(Instant.parse("2026-11-30T13:05:12Z")),
                Optional.of("cannot reach the sync server"),
                Optional.empty());
        assertThat(o.shown(KeyStatus.Kind.FAILED)).isEqualTo(KeyStatus.Kind.OFFLINE);
        assertThat(uk.headline(failed, o)).isEqualTo("Offline — 3 changes waiting · next try 14:05");
        assertThat(us.headline(failed, o)).isEqualTo("Offline — 3 changes waiting · next try 2:05 PM");
        assertThat(uk.detail(failed, o))
                .isEqualTo("The sync server cannot be reached. leasesync tries again by itself "
                        + "and syncs as soon as it answers; your changes stay here until then. · last synced 13:05:12");
        KeyStatus messages = new KeyStatus.Failed(
                TaskKey.of("alice", "message_sync"), Optional.empty(), Optional.of("x"), Optional.empty());
        assertThat(uk.headline(messages, o)).isEqualTo("Offline · no changes waiting · next try 14:05");
        CardOverlay one = o.withOffline(Optional.of(next), Map.of(Scope.COURSE_SYNC, 1), NOW);
        assertThat(uk.headline(failed, one)).isEqualTo("Offline — 1 change waiting · next try 14:05");
    }

    @Test
    void offlineShowsTheKeysOwnRetryWhenItComesBeforeTheNextProbe() {
        Instant probe = Instant.parse("2026-11-30T14:05:00Z");
        KeyStatus failed = new KeyStatus.Failed(
                KEY, Optional.empty(), Optional.of("x"), Optional.of(Instant.parse("2026-11-30T14:04:00Z")));
        CardOverlay o = CardOverlay.none(NOW).withOffline(Optional.of(probe), Map.of(), NOW);
        assertThat(uk.headline(failed, o)).endsWith("next try 14:04");
    }

    @Test
    void needsAttentionAndRunningAreNeverHiddenByPauseOrOffline() {
        CardOverlay both = paused(Pause.untilResumed()).withOffline(Optional.of(NOW), Map.of(), NOW);
        assertThat(both.shown(KeyStatus.Kind.NEEDS_ATTENTION)).isEqualTo(KeyStatus.Kind.NEEDS_ATTENTION);
        assertThat(both.shown(KeyStatus.Kind.RUNNING)).isEqualTo(KeyStatus.Kind.RUNNING);
        assertThat(both.shown(KeyStatus.Kind.FAILED)).isEqualTo(KeyStatus.Kind.PAUSED); // the user's choice first
        assertThat(CardOverlay.none(NOW).shown(KeyStatus.Kind.FAILED)).isEqualTo(KeyStatus.Kind.FAILED);
    }

    @Test
    void everyTextOfTheBundleFormats() {
        Messages m = new Messages(Locale.UK, LONDON);
        java.util.ResourceBundle b = java.util.ResourceBundle.getBundle(Messages.BUNDLE, Locale.UK);
        for (String key : b.keySet()) {
            assertThat(m.get(key, 1, 2, 3))
                    .as(key)
                    .isNotBlank()
                    .doesNotContain("{0")
                    .doesNotContain("{1");
        }
    }
}
