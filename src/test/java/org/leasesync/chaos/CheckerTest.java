package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker finds each kind of broken promise in a hand-made history, and passes a clean one. */
class CheckerTest {

    private static final long MS = 1_000_000L;
    private static final String KEY = "alice|course_sync";

    private final List<JsonNode> events = new ArrayList<>();
    private final List<JsonNode> audit = new ArrayList<>();
    private List<String> outbox = List.of();
    private Map<String, java.util.Set<String>> otherOutboxes = Map.of();
    private List<String> unfinished = List.of();
    private Map<String, List<JsonNode>> serverRecords = Map.of();

    @Test
    void aCleanHistoryHasEveryCounterAtZero() {
        grant(100, 1, 11);
        write(110, 1, 112);
        release(120, 1, 11);
        grant(130, 2, 12);
        write(140, 2, 141);
        edit(150, "c1");
        push(1, 2, List.of("c1"), List.of());
        ChaosReport r = check();
        assertThat(r.violations()).isEmpty();
        assertThat(r.summaryLine())
                .isEqualTo(
                        "rounds=5 kills=1 faults=2 runs=2 overlaps=0 duplicates=0 lost=0 stuck=0 cross_user=0 stolen=0");
    }

    @Test
    void flagsALocalWriteThatBeganAfterANewerEpochWasGranted() {
        grant(100, 1, 11);
        grant(200, 2, 12); // the key was taken over ...
        write(210, 1, 215); // ... and the old epoch still wrote
        ChaosReport r = check();
        assertThat(r.perCounter()).containsEntry("overlaps", 1);
        assertThat(r.violations().get(0).what()).contains("epoch 1 began 10 ms after epoch 2 was granted");
        assertThat(r.violations().get(0).history())
                .anyMatch(l -> l.contains("\"type\":\"grant\"") && l.contains("\"epoch\":2"));
    }

    @Test
    void aWriteOfTheOldEpochThatBeganBeforeTheNewGrantIsNoOverlap() {
        grant(100, 1, 11);
        write(190, 1, 230); // began before the grant at 200: the guard decided before the takeover
        grant(200, 2, 12);
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void flagsTwoGrantsOfOneEpoch() {
        grant(100, 3, 11);
        grant(150, 3, 12);
        assertThat(check().perCounter()).containsEntry("overlaps", 1);
    }

    @Test
    void flagsTheServerAcceptingALowerFencingTokenAfterAHigherOne() {
        push(1, 5, List.of(), List.of());
        push(2, 4, List.of(), List.of());
        ChaosReport r = check();
        assertThat(r.perCounter()).containsEntry("overlaps", 1);
        assertThat(r.violations().get(0).what()).contains("fencing token 4 after it had accepted token 5");
    }

    @Test
    void aRefusedStaleRequestIsNoOverlap() {
        push(1, 5, List.of(), List.of());
        ObjectNode refused = push(2, 4, List.of(), List.of());
        refused.put("status", 409);
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void aReplayOfACompletedPushAnsweredAfterANewerTokenIsNoOverlap() {
        push(1, 4, List.of("c1"), List.of()).put("idempotencyKey", "k1");
        push(2, 5, List.of(), List.of());
        push(3, 4, List.of(), List.of()).put("idempotencyKey", "k1"); // replayed from storage
        edit(100, "c1");
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void flagsAChangeAppliedTwice() {
        edit(100, "c1");
        push(1, 1, List.of("c1"), List.of());
        push(2, 2, List.of("c1"), List.of());
        assertThat(check().perCounter()).containsEntry("duplicates", 1);
    }

    @Test
    void oneChangeIdAppliedOnceInEachOfTwoScopesIsNoDuplicate() {
        edit(100, "c1");
        push(1, 1, List.of("c1"), List.of());
        push(2, 1, List.of("c1"), List.of()).put("scope", "backup"); // the server remembers change ids per user+scope
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void oneChangeIdAppliedOnceForAliceAndOnceForBobIsNoDuplicate() {
        edit(100, "c1");
        push(1, 1, List.of("c1"), List.of());
        push(2, 1, List.of("c1"), List.of()).put("pathUser", "bob").put("authUser", "bob");
        ChaosReport r = check();
        assertThat(r.violations()).isEmpty();
        assertThat(r.perCounter()).containsEntry("duplicates", 0);
    }

    @Test
    void anEditIsLostWhenItsChangeIdWasAppliedOnlyForAnotherUser() {
        edit(100, "c1"); // alice|course_sync
        push(1, 1, List.of("c1"), List.of()).put("pathUser", "bob").put("authUser", "bob"); // bob's change c1
        ChaosReport r = check();
        assertThat(r.perCounter()).containsEntry("lost", 1).containsEntry("duplicates", 0);
        assertThat(r.violations().get(0).what()).contains("c1 of alice|course_sync");
    }

    @Test
    void anEditIsLostWhenOnlyTheOutboxOfAnotherKeyHoldsItsChangeId() {
        edit(100, "c1");
        otherOutboxes = Map.of("alice|backup", java.util.Set.of("c1"));
        assertThat(check().perCounter()).containsEntry("lost", 1);
    }

    @Test
    void aResendReportedAsDuplicateIsNotADuplicateApplication() {
        edit(100, "c1");
        push(1, 1, List.of("c1"), List.of());
        push(2, 1, List.of(), List.of("c1"));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void flagsAnEditNeitherAppliedNorInTheOutbox() {
        edit(100, "c1");
        ChaosReport r = check();
        assertThat(r.perCounter()).containsEntry("lost", 1);
        assertThat(r.violations().get(0).what()).contains("c1");
    }

    @Test
    void anEditStillInTheOutboxIsPendingNotLost() {
        edit(100, "c1");
        outbox = List.of("c1");
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void flagsARunStillRecordedAsRunningAfterTheDrain() {
        unfinished = List.of("run-1 (alice|course_sync)");
        assertThat(check().perCounter()).containsEntry("stuck", 1);
    }

    @Test
    void flagsADeadOwnersRunStillJoinedMoreThanOneTtlAfterTheKill() {
        grant(100, 1, 11);
        kill(200, 11);
        joinedElsewhere(200 + 3_500, 1); // bound is 3 s: the dead owner still blocks the key
        grant(200 + 3_600, 2, 12);
        ChaosReport r = check();
        assertThat(r.perCounter()).containsEntry("stuck", 1);
        assertThat(r.violations().get(0).what()).contains("3500 ms later");
        assertThat(r.takeoverMillis()).containsExactly(100L);
    }

    @Test
    void flagsADeadOwnersKeyThatNoSuccessorEverHeld() {
        grant(100, 1, 11);
        kill(200, 11);
        assertThat(check().perCounter()).containsEntry("stuck", 1);
    }

    @Test
    void aDeadOwnersKeyFirstAskedForLateButTakenOverAtOnceIsNotStuck() {
        grant(100, 1, 11);
        kill(200, 11);
        grant(200 + 5_000, 2, 12); // nobody asked before: no trigger was kept waiting
        ChaosReport r = check();
        assertThat(r.violations()).isEmpty();
        assertThat(r.takeoverMillis()).containsExactly(0L);
    }

    @Test
    void aKeyReleasedBeforeTheKillNeedsNoTakeover() {
        grant(100, 1, 11);
        release(150, 1, 11);
        kill(200, 11);
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void flagsARequestAcceptedOnAnotherUsersPath() {
        ObjectNode a = push(1, 1, List.of(), List.of());
        a.put("authUser", "bob");
        assertThat(check().perCounter()).containsEntry("cross_user", 1);
    }

    @Test
    void flagsAServerRecordWrittenForAnotherUser() {
        ObjectNode rec = Journal.JSON.createObjectNode().put("id", "r1");
        rec.putObject("payload").put("owner", "bob");
        serverRecords = Map.of(KEY, List.of(rec));
        assertThat(check().perCounter()).containsEntry("cross_user", 1);
    }

    @Test
    void flagsALeaseTakenFromAHolderThatRenewedLessThanATtlBefore() {
        grantBegan(100, 1, 11);
        renew(1_100, 1, 11); // the holder is alive and renewing ...
        takeOver(1_400, 2, 13, 1, 11); // ... and 300 ms later another process took the key (a btime step)
        ChaosReport r = check();
        assertThat(r.perCounter()).containsEntry("stolen", 1);
        assertThat(r.violations().get(0).what())
                .contains("epoch 1 was taken over")
                .contains("300 ms after its live holder");
        assertThat(r.summaryLine()).endsWith("stolen=1");
    }

    @Test
    void aTakeoverOneTtlAfterTheLastHeartbeatOrOfAKilledHolderIsNotStolen() {
        grantBegan(100, 1, 11);
        renew(1_100, 1, 11);
        takeOver(4_100, 2, 13, 1, 11); // 3 s (one TTL) after the renewal began: the holder went silent
        grantBegan(5_000, 3, 14);
        kill(5_200, 14); // killed: provably dead at once
        takeOver(5_300, 4, 15, 3, 14);
        renew(5_400, 4, 15);
        takeOver(5_500, 5, 15, 4, 15); // its own orphan, taken back
        grantBegan(6_000, 6, 16);
        renew(6_100, 6, 16); // its last sign of life ...
        event("agent-exit", 6_900, 1).put("victim", 16); // ... then it exited on its own (a crash)
        takeOver(6_300, 7, 17, 6, 16);
        assertThat(check().perCounter()).containsEntry("stolen", 0);
    }

    @Test
    void aJoinAfterTheBoundIsStuckUnlessAProcessOfTheDeviceWasStoppedMeanwhile() {
        grant(100, 1, 11);
        kill(200, 11);
        joinedElsewhere(3_500, 1); // 3.3 s after the kill, TTL 3 s: stuck
        grant(3_600, 2, 12);
        assertThat(check().perCounter()).containsEntry("stuck", 1);

        events.clear();
        grant(100, 1, 11);
        kill(200, 11);
        ObjectNode pause = event("pause", 250, 1); // the device's database host was stopped ...
        pause.remove("key");
        pause.put("victim", 13);
        joinedElsewhere(3_500, 1); // ... so every call of the device waited
        ObjectNode resume = event("resume", 3_450, 1);
        resume.remove("key");
        resume.put("victim", 13);
        grant(3_600, 2, 12);
        assertThat(check().perCounter()).containsEntry("stuck", 0);
    }

    // ---- history building -----------------------------------------------------------------------

    private ChaosReport check() {
        Map<String, java.util.Set<String>> outboxByKey = new java.util.HashMap<>(otherOutboxes);
        outboxByKey.put(KEY, java.util.Set.copyOf(outbox));
        Evidence ev = new Evidence(
                events,
                audit,
                Map.of("device-a", new Evidence.Device("client-a", outboxByKey, 2, unfinished, Map.of())),
                serverRecords,
                Duration.ofSeconds(3),
                Duration.ofSeconds(3));
        return Checker.check(ev, new ChaosReport.Counts(5, 1, 2, 0));
    }

    private ObjectNode event(String type, long atMs, long pid) {
        ObjectNode e = Journal.JSON.createObjectNode();
        e.put("mono", atMs * MS);
        e.put("pid", pid);
        e.put("type", type);
        e.put("device", "device-a");
        e.put("key", KEY);
        events.add(e);
        events.sort(java.util.Comparator.comparingLong(x -> x.path("mono").asLong()));
        return e;
    }

    private void grant(long atMs, long epoch, long pid) {
        event("grant", atMs, pid).put("epoch", epoch);
    }

    private static String owner(long pid) {
        return "vm:pidns1/" + pid + "/1@" + "0".repeat(32) + "@1/a" + pid;
    }

    private void grantBegan(long atMs, long epoch, long pid) {
        event("grant", atMs, pid)
                .put("epoch", epoch)
                .put("began", (atMs - 5) * MS)
                .put("owner", owner(pid));
    }

    private void renew(long beganMs, long epoch, long pid) {
        event("renew", beganMs + 5, pid)
                .put("epoch", epoch)
                .put("began", beganMs * MS)
                .put("owner", owner(pid));
    }

    private void takeOver(long atMs, long epoch, long pid, long fromEpoch, long fromPid) {
        event("grant", atMs, pid)
                .put("epoch", epoch)
                .put("began", (atMs - 5) * MS)
                .put("owner", owner(pid))
                .put("tookOverEpoch", fromEpoch)
                .put("tookOverOwner", owner(fromPid));
    }

    private void release(long atMs, long epoch, long pid) {
        event("release", atMs, pid).put("epoch", epoch);
    }

    private void write(long beganMs, long epoch, long committedMs) {
        event("write", committedMs, 0)
                .put("epoch", epoch)
                .put("began", beganMs * MS)
                .put("op", "apply-pull-page");
    }

    private void joinedElsewhere(long atMs, long epoch) {
        event("joined", atMs, 12).put("epoch", epoch).put("local", false);
    }

    private void edit(long atMs, String changeId) {
        event("edit", atMs, 0).put("changeId", changeId).put("record", "r1");
    }

    private void kill(long atMs, long victim) {
        ObjectNode k = event("kill", atMs, 1);
        k.remove("key");
        k.put("victim", victim).put("survivors", true);
    }

    private ObjectNode push(long seq, long token, List<String> applied, List<String> duplicates) {
        ObjectNode a = Journal.JSON.createObjectNode();
        a.put("seq", seq);
        a.put("pathUser", "alice");
        a.put("authUser", "alice");
        a.put("scope", "course_sync");
        a.put("op", "push");
        a.put("clientId", "client-a");
        a.put("fencingToken", token);
        a.put("status", 200);
        applied.forEach(a.putArray("applied")::add);
        a.withArray("applied");
        duplicates.forEach(a.putArray("duplicates")::add);
        a.withArray("duplicates");
        a.putArray("conflicts");
        audit.add(a);
        return a;
    }
}
