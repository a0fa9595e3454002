package org.leasesync.desktop.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.notify.NotificationPolicy.Notice;
import org.leasesync.desktop.notify.NotificationPolicy.Observation;
import org.leasesync.lease.TaskKey;

class NotificationPolicyTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    final NotificationPolicy policy = new NotificationPolicy(new Messages(Locale.UK, ZoneId.of("UTC")));

    static Observation failing(int n) {
        return new Observation(
                KEY,
                n,
                n == 0 ? Optional.empty() : Optional.of("the sync server failed (HTTP 500)"),
                Optional.empty(),
                Map.of());
    }

    @Test
    void threeFailuresInARowMakeOneNotificationNotOneEach() {
        assertThat(policy.observe(failing(1), false)).isEmpty();
        assertThat(policy.observe(failing(2), false)).isEmpty();
        List<Notice> n = policy.observe(failing(3), false);
        assertThat(n).hasSize(1);
        assertThat(n.get(0).kind()).isEqualTo(Notice.Kind.FAILING);
        assertThat(n.get(0).key()).isEqualTo(KEY);
        assertThat(n.get(0).title()).isEqualTo("Courses: sync keeps failing");
        assertThat(n.get(0).body())
                .isEqualTo("It failed 3 times in a row. Last error: the sync server failed (HTTP 500)");
        assertThat(policy.observe(failing(3), false)).isEmpty(); // the same look again
        assertThat(policy.observe(failing(4), false)).isEmpty();
        assertThat(policy.observe(failing(9), false)).isEmpty();
    }

    @Test
    void aSuccessEndsTheEpisodeAndTheNextStreakNotifiesAgain() {
        policy.observe(failing(3), false);
        assertThat(policy.observe(failing(0), false)).isEmpty(); // never on a success
        assertThat(policy.observe(failing(2), false)).isEmpty();
        assertThat(policy.observe(failing(3), false)).hasSize(1);
    }

    @Test
    void failuresWhileOfflineDoNotNotifyButAStreakThatOutlastsTheOutageDoes() {
        assertThat(policy.observe(failing(3), true)).isEmpty();
        assertThat(policy.observe(failing(5), true)).isEmpty();
        assertThat(policy.observe(failing(6), false)).hasSize(1); // the server answers, and it still fails
    }

    @Test
    void needsAttentionNotifiesOncePerEpisode() {
        Observation attention = new Observation(
                KEY, 0, Optional.empty(), Optional.of("a push was sent but its result is unknown"), Map.of());
        List<Notice> n = policy.observe(attention, false);
        assertThat(n).extracting(Notice::kind).containsExactly(Notice.Kind.NEEDS_ATTENTION);
        assertThat(n.get(0).title()).isEqualTo("Courses needs attention");
        assertThat(n.get(0).body())
                .isEqualTo("a push was sent but its result is unknown — nothing is retried "
                        + "automatically. Open leasesync to check again.");
        assertThat(policy.observe(attention, false)).isEmpty();
        assertThat(policy.observe(failing(0), false)).isEmpty(); // resolved
        assertThat(policy.observe(attention, true)).hasSize(1); // a new episode; offline does not hide it
    }

    @Test
    void conflictsPresentAtTheFirstLookAreTheBaselineNewOnesNotifyOnce() {
        Observation before = new Observation(KEY, 0, Optional.empty(), Optional.empty(), Map.of("c1", "course-1"));
        assertThat(policy.observe(before, false)).isEmpty();
        Observation two = new Observation(
                KEY,
                0,
                Optional.empty(),
                Optional.empty(),
                Map.of("c1", "course-1", "c2", "course-7", "c3", "course-3"));
        List<Notice> n = policy.observe(two, false);
        assertThat(n).extracting(Notice::kind).containsExactly(Notice.Kind.CONFLICT);
        assertThat(n.get(0).title()).isEqualTo("Courses: 2 new conflicts");
        assertThat(n.get(0).body()).contains("(course-3, course-7)");
        assertThat(policy.observe(two, false)).isEmpty();
        Observation resolved = new Observation(KEY, 0, Optional.empty(), Optional.empty(), Map.of("c3", "course-3"));
        assertThat(policy.observe(resolved, false)).isEmpty();
        Observation again =
                new Observation(KEY, 0, Optional.empty(), Optional.empty(), Map.of("c3", "course-3", "c9", "course-9"));
        assertThat(policy.observe(again, false)).extracting(Notice::title).containsExactly("Courses: a new conflict");
    }

    @Test
    void noticesOfOneKindMergeIntoOneNamingEveryKey() {
        Notice courses = policy.observe(failing(3), false).get(0);
        Notice backup = policy.observe(
                        new Observation(
                                TaskKey.of("alice", "backup"), 4, Optional.of("HTTP 500"), Optional.empty(), Map.of()),
                        false)
                .get(0);
        assertThat(policy.merge(List.of(courses))).isSameAs(courses);
        Notice both = policy.merge(List.of(courses, backup));
        assertThat(both.key()).isEqualTo(KEY); // clicking opens the first one's card
        assertThat(both.title()).isEqualTo("Courses, Settings backup: sync keeps failing");
        assertThat(both.body()).isEqualTo("Each failed at least 3 times in a row. Last error: HTTP 500");
        Notice c1 = new Notice(KEY, Notice.Kind.CONFLICT, "t", "b", 1, "course-1");
        Notice c2 = new Notice(TaskKey.of("alice", "message_sync"), Notice.Kind.CONFLICT, "t", "b", 2, "m-1, m-2");
        Notice conflicts = policy.merge(List.of(c1, c2));
        assertThat(conflicts.title()).isEqualTo("Courses, Messages: 3 new conflicts");
        assertThat(conflicts.body())
                .startsWith(
                        "Changes of yours and changes on the server touch the same records " + "(course-1, m-1, m-2)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> policy.merge(List.of(c1, courses)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysAreSeparateEpisodes() {
        policy.observe(failing(3), false);
        Observation other =
                new Observation(TaskKey.of("alice", "backup"), 3, Optional.of("x"), Optional.empty(), Map.of());
        assertThat(policy.observe(other, false))
                .extracting(Notice::title)
                .containsExactly("Settings backup: sync keeps failing");
    }

    @Test
    void signingOutNotifiesOncePerEpisodeAndIsNeverCountedAsFailing() {
        Observation out = new Observation(
                KEY,
                0,
                Optional.empty(),
                Optional.empty(),
                Map.of(),
                Optional.of(
                        "signed out: the sync server no longer accepts this device's session (HTTP 401 invalid_token)"));
        List<Notice> n = policy.observe(out, false);
        assertThat(n).singleElement().satisfies(x -> {
            assertThat(x.kind()).isEqualTo(Notice.Kind.SIGNED_OUT);
            assertThat(x.title()).isEqualTo("Courses: signed out");
            assertThat(x.body()).contains("Sign in again");
        });
        assertThat(policy.observe(out, true))
                .as("the same episode, offline or not")
                .isEmpty();
        assertThat(policy.observe(failing(0), false)).isEmpty();
        assertThat(policy.observe(out, false))
                .as("signed out again after a good run")
                .hasSize(1);
        Notice b = new Notice(TaskKey.of("alice", "backup"), Notice.Kind.SIGNED_OUT, "x", "y", 1, "z");
        assertThat(policy.merge(List.of(n.get(0), b)).title()).isEqualTo("Courses, Settings backup: signed out");
    }
}
