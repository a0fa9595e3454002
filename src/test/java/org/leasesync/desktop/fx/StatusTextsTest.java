package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.CardOverlay;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunView;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/** Every status text of the window, as a pure function of a snapshot and a time zone. */
class StatusTextsTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final Instant T0 = Instant.parse("2026-11-30T13:03:07Z");
    static final Instant T1 = Instant.parse("2026-11-30T13:05:12Z");
    final StatusTexts texts = new StatusTexts(
            new Messages(java.util.Locale.UK, ZoneId.of("Europe/Berlin"))); // UTC+1: local times are shown

    static RunView run(TaskSource first, boolean local, boolean followUp, String progress, TaskSource... merged) {
        return new RunView(
                "r1",
                KEY,
                3,
                "host/1/2/ab",
                first,
                List.of(merged),
                T0,
                Optional.of(Stage.PULLING),
                progress,
                local,
                followUp);
    }

    static KeyStatus running(RunView r, boolean joined) {
        return new KeyStatus.Running(KEY, Optional.of(T0), r, joined);
    }

    @Test
    void idleShowsLastSyncedInLocalTime() {
        KeyStatus s = KeyStatus.idle(KEY, Optional.of(T1));
        assertThat(texts.headline(s)).isEqualTo("Up to date · last synced 14:05:12");
        assertThat(texts.detail(s)).isEmpty();
    }

    static KeyStatus failed(Optional<KeyStatus.OtherProcess> other) {
        return new KeyStatus.Failed(
                KEY,
                Optional.of(T1),
                Optional.of("cannot reach the sync server at http://127.0.0.1:9/"),
                Optional.empty(),
                other);
    }

    @Test
    void aFailureOfAnotherProcessSaysWhichProgramPidAndServer() {
        KeyStatus s = failed(Optional.of(new KeyStatus.OtherProcess(
                Optional.of("leasesync sync"),
                java.util.OptionalLong.of(4242),
                Optional.of("http://127.0.0.1:9/"),
                false)));
        assertThat(texts.headline(s))
                .isEqualTo("Last sync failed: cannot reach the sync server at http://127.0.0.1:9/ — Retry");
        assertThat(texts.detail(s))
                .isEqualTo("From another process — leasesync sync (pid 4242) against "
                        + "http://127.0.0.1:9/, not this window's server · last successful sync 14:05:12");
    }

    @Test
    void aFailureOfAnotherProcessOnTheSameServerAndOneRecordedWithoutOrigin() {
        assertThat(texts.detail(failed(Optional.of(new KeyStatus.OtherProcess(
                        Optional.of("leasesync sync"),
                        java.util.OptionalLong.of(7),
                        Optional.of("http://127.0.0.1:8787/"),
                        true)))))
                .startsWith(
                        "From another process — leasesync sync (pid 7) against http://127.0.0.1:8787/, this window's server · ");
        assertThat(texts.detail(failed(Optional.of(new KeyStatus.OtherProcess(
                        Optional.empty(), java.util.OptionalLong.empty(), Optional.empty(), false)))))
                .isEqualTo("From another process — leasesync · last successful sync 14:05:12");
        assertThat(texts.detail(failed(Optional.empty()))).isEqualTo("Last successful sync 14:05:12".replace("L", "l"));
    }

    @Test
    void neverSynced() {
        assertThat(texts.headline(KeyStatus.idle(KEY, Optional.empty()))).isEqualTo("Not synced yet");
    }

    @Test
    void runningShowsStageStartTimeSourceAndProgress() {
        KeyStatus s = running(run(TaskSource.SCHEDULE, true, false, "pulled 12 records"), false);
        assertThat(texts.headline(s)).isEqualTo("Syncing · pulling · started 14:03:07 (schedule)");
        assertThat(texts.detail(s)).isEqualTo("Pulled 12 records");
    }

    @Test
    void aClickWhileRunningSaysItJoined() {
        KeyStatus s = running(run(TaskSource.SCHEDULE, true, false, ""), true);
        assertThat(texts.detail(s)).isEqualTo("Already syncing — started 14:03:07 by schedule; your request joined it");
    }

    @Test
    void aQueuedFollowUpIsAnnounced() {
        KeyStatus s = running(run(TaskSource.SCHEDULE, true, true, ""), true);
        assertThat(texts.detail(s))
                .isEqualTo(
                        "Already syncing — started 14:03:07 by schedule; your request joined it · another sync will follow");
    }

    @Test
    void aRunOfAnotherProcessIsNamedAsSuch() {
        KeyStatus s = running(run(TaskSource.MANUAL, false, false, ""), false);
        assertThat(texts.detail(s)).isEqualTo("running in another leasesync process");
    }

    @Test
    void failedShowsThePlainReasonAndRetry() {
        KeyStatus s = new KeyStatus.Failed(
                KEY, Optional.of(T0), Optional.of("the sync server is unavailable"), Optional.of(T1));
        assertThat(texts.headline(s)).isEqualTo("Last sync failed: the sync server is unavailable — Retry");
        assertThat(texts.detail(s)).isEqualTo("Retrying automatically at 14:05:12 · last successful sync 14:03:07");
    }

    @Test
    void needsAttentionSaysWhatIsKnownAndThatNothingIsRetried() {
        KeyStatus s = new KeyStatus.NeedsAttention(
                KEY,
                Optional.empty(),
                Optional.of("a push was sent but its result could not be confirmed"),
                Optional.empty());
        assertThat(texts.headline(s))
                .isEqualTo("Needs attention: a push was sent but its result could not be confirmed");
        assertThat(texts.detail(s)).contains("Nothing is retried automatically").contains("Check again");
    }

    @Test
    void needsAttentionNamesTheUnconfirmedPushByItsIdempotencyKeyAndChangeIds() {
        KeyStatus s = new KeyStatus.NeedsAttention(
                KEY,
                Optional.empty(),
                Optional.of("a push was sent but its result could not be confirmed"),
                Optional.of(new KeyStatus.UnconfirmedPush(
                        "6f1c2a9e-0b7d-4c1e-9f3a-2d5b8e7c4a10", List.of("c-1", "c-2", "c-3", "c-4", "c-5"))));
        assertThat(texts.detail(s))
                .isEqualTo("Unconfirmed push (idempotency key 6f1c2a9e-0b7d-4c1e-9f3a-2d5b8e7c4a10): "
                        + "5 changes — c-1, c-2, c-3 and 2 more. Nothing is retried automatically. Check again once the server "
                        + "answers, or discard and resend (the server applies each change at most once).");

        ScopeCardModel card = new ScopeCardModel(org.leasesync.lease.Scope.COURSE_SYNC, texts.messages());
        card.apply(s, texts);
        assertThat(card.detailProperty().get())
                .startsWith("Unconfirmed push (idempotency key 6f1c2a9e-")
                .contains("c-1, c-2, c-3 and 2 more");
        assertThat(card.checkAgainVisibleProperty().get()).isTrue();
    }

    @Test
    void cancelled() {
        KeyStatus s = new KeyStatus.Cancelled(KEY, Optional.of(T1), Optional.of("account switched to bob"));
        assertThat(texts.headline(s)).isEqualTo("Sync cancelled · last synced 14:05:12");
    }

    @Test
    void cardButtonsFollowTheState() {
        ScopeCardModel card = new ScopeCardModel(org.leasesync.lease.Scope.COURSE_SYNC, texts.messages());
        card.apply(running(run(TaskSource.SCHEDULE, true, false, ""), false), texts);
        assertThat(card.cancelVisibleProperty().get()).isTrue();
        assertThat(card.followUpVisibleProperty().get()).isTrue();
        assertThat(card.retryVisibleProperty().get()).isFalse();
        card.apply(new KeyStatus.Failed(KEY, Optional.empty(), Optional.of("x"), Optional.empty()), texts);
        assertThat(card.retryVisibleProperty().get()).isTrue();
        assertThat(card.cancelVisibleProperty().get()).isFalse();
        card.apply(new KeyStatus.NeedsAttention(KEY, Optional.empty(), Optional.of("x"), Optional.empty()), texts);
        assertThat(card.checkAgainVisibleProperty().get()).isTrue();
        card.apply(running(run(TaskSource.MANUAL, false, false, ""), false), texts);
        assertThat(card.cancelVisibleProperty().get())
                .as("cannot cancel another process's run")
                .isFalse();
    }

    @Test
    void aSignedOutAccountShowsOnEveryCardWithSignInAboveThePauseAndOffline() {
        ScopeCardModel card = new ScopeCardModel(org.leasesync.lease.Scope.COURSE_SYNC, texts.messages());
        KeyStatus idle = KeyStatus.idle(KEY, Optional.of(T1));
        CardOverlay signedOut = CardOverlay.none(T1).withAccountSignedOut(true);
        card.apply(idle, signedOut, texts, T1.plusSeconds(600));
        assertThat(card.headlineProperty().get()).isEqualTo("Signed out — sign in again");
        assertThat(card.detailProperty().get())
                .startsWith("The sync server no longer accepts this device's session.")
                .endsWith(" · last synced 14:05:12");
        assertThat(card.signInVisibleProperty().get()).isTrue();
        assertThat(card.kindProperty().get()).isEqualTo(KeyStatus.Kind.SIGNED_OUT);
        // the card whose own run found out says the same, with the same last sync
        String others = card.detailProperty().get();
        card.apply(
                new KeyStatus.SignedOut(KEY, Optional.of(T1), Optional.of("401"), Optional.empty()),
                signedOut,
                texts,
                T1.plusSeconds(600));
        assertThat(card.detailProperty().get()).isEqualTo(others);
        CardOverlay pausedAndOffline = signedOut
                .withPause(Optional.of(org.leasesync.desktop.Pause.untilResumed()), T1)
                .withOffline(Optional.of(T1), java.util.Map.of(), T1);
        card.apply(
                new KeyStatus.Failed(KEY, Optional.empty(), Optional.of("x"), Optional.empty()),
                pausedAndOffline,
                texts,
                T1);
        assertThat(card.kindProperty().get())
                .as("the server answered: only signing in helps")
                .isEqualTo(KeyStatus.Kind.SIGNED_OUT);
        assertThat(card.retryVisibleProperty().get()).isFalse();
        card.apply(running(run(TaskSource.MANUAL, true, false, ""), false), signedOut, texts, T1);
        assertThat(card.kindProperty().get())
                .as("a Sync now still shows running")
                .isEqualTo(KeyStatus.Kind.RUNNING);
        assertThat(card.signInVisibleProperty().get()).isFalse();
        card.apply(idle, signedOut.withAccountSignedOut(false), texts, T1.plusSeconds(600));
        assertThat(card.headlineProperty().get()).isEqualTo("Up to date · last synced 14:05:12");
        assertThat(card.signInVisibleProperty().get()).isFalse();
    }

    @Test
    void theServerLineNamesOneUrlOrAtMostThreeOfAList() {
        assertThat(texts.servers(org.leasesync.remote.ServerUrls.parse("http://127.0.0.1:8787")))
                .isEqualTo("Server: http://127.0.0.1:8787/");
        assertThat(texts.servers(org.leasesync.remote.ServerUrls.parse(
                        "http://a:1,http://b:1,http://c:1,http://d:1,https://user:secret@e:1")))
                .isEqualTo(
                        "Servers: http://a:1/, http://b:1/, http://c:1/ and 2 more (the first that answers stays in use)");
    }

    static RunView counted(org.leasesync.run.RunProgress c) {
        return new RunView(
                "r1",
                KEY,
                3,
                "host/1/2/ab",
                TaskSource.MANUAL,
                List.of(),
                T0,
                Optional.of(Stage.PUSHING),
                "pushed 40 of 120 changes",
                true,
                false,
                c);
    }

    @Test
    void theProgressLineCountsPagesWhilePullingAndChangesOfTheOutboxWhilePushing() {
        assertThat(texts.progress(counted(org.leasesync.run.RunProgress.NONE))).isEqualTo("Pulling…");
        assertThat(texts.progress(new RunView(
                        "r1", KEY, 3, "o", TaskSource.MANUAL, List.of(), T0, Optional.empty(), "", true, false)))
                .isEqualTo("Starting…");
        assertThat(texts.progress(counted(org.leasesync.run.RunProgress.pulled(1, 1))))
                .isEqualTo("Pulled 1 page · 1 record");
        assertThat(texts.progress(counted(org.leasesync.run.RunProgress.pulled(3, 120))))
                .isEqualTo("Pulled 3 pages · 120 records");
        var pushing = org.leasesync.run.RunProgress.pulled(3, 1200).pushing(120).pushedMore(40);
        assertThat(texts.progress(counted(pushing))).isEqualTo("Pushed 40 of 120 changes");
        assertThat(texts.progress(
                        counted(org.leasesync.run.RunProgress.pulled(2, 0).pushing(0))))
                .isEqualTo("Pulled no records · nothing to push");
        // with counts, the detail line does not repeat the worker's progress text
        assertThat(texts.detail(running(counted(pushing), false))).isEmpty();
    }

    @Test
    void aSyncThatJustEndedSaysSoForAMinuteThenShowsItsTime() {
        KeyStatus s = KeyStatus.idle(KEY, Optional.of(T1));
        CardOverlay none = CardOverlay.none(T1);
        assertThat(texts.headline(s, none, T1.plusMillis(300))).isEqualTo("Up to date · synced just now (14:05:12)");
        assertThat(texts.headline(s, none, T1.plusSeconds(59))).isEqualTo("Up to date · synced just now (14:05:12)");
        assertThat(texts.headline(s, none, T1.plus(StatusTexts.JUST_NOW)))
                .isEqualTo("Up to date · last synced 14:05:12");
        // a clock that went back does not make an old sync "just now"
        assertThat(texts.headline(s, none, T1.minusSeconds(5))).isEqualTo("Up to date · last synced 14:05:12");
    }
}
