package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.registry.RunResult;
import org.leasesync.registry.RunStatus;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskSource;
import org.leasesync.registry.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * Issue 14 §5, fifth pass: the push reads the next batch while the batch before it is at the server.
 * Real client (registry, coordinator, worker, HTTP, H2) against the real reference server, batches of
 * two; the worker's ports are wrapped only to hold the first push at the server until the read-ahead
 * has read, and to do there what a user could do at that moment. Whatever happens meanwhile, every
 * edit is sent once, on the version it must be based on, and none is lost or overtaken by a later
 * edit of its record.
 */
class PushReadAheadTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final SyncSettings BATCHES_OF_TWO = new SyncSettings(1000, 2, 6, Duration.ofMillis(200), Duration.ofHours(24));

    ReferenceServer server;
    LocalStore store;
    ClientStack client;
    /** The change ids of every push request, in the order sent. */
    final List<List<String>> sentBatches = new CopyOnWriteArrayList<>();
    /** What each read-ahead returned, in order. */
    final List<List<String>> readAhead = new CopyOnWriteArrayList<>();
    final CountDownLatch firstReadAhead = new CountDownLatch(1);
    /** Runs while the first push is at the server (already applied there), after the read-ahead read. */
    final AtomicReference<Runnable> whileFirstBatchAtServer = new AtomicReference<>(() -> { });

    @BeforeEach
    void setUp() throws Exception {
        server = ReferenceServer.start(ServerConfig.defaults());
        store = LocalStore.openInMemory();
        client = new ClientStack(store, server.baseUrl(), Map.of("alice", server.tokenFor("alice")), TimeSource.system(),
                BATCHES_OF_TWO, HttpSettings.DEFAULT, this::holdingFirstPush, this::watchingReadAhead);
        assertThat(client.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        sentBatches.clear();
    }

    @AfterEach
    void tearDown() {
        client.close();
        store.close();
        server.close();
    }

    @Test
    void anEditOfARecordInEitherBatchSavedWhileTheFirstIsAtTheServerIsSentOnceOnTheConfirmedVersion() throws Exception {
        String a = client.edits.addEdit(KEY, "ra-a", "{\"n\":\"a1\"}", false);
        String b = client.edits.addEdit(KEY, "ra-b", "{\"n\":\"b1\"}", false);
        String c = client.edits.addEdit(KEY, "ra-c", "{\"n\":\"c1\"}", false);
        String d = client.edits.addEdit(KEY, "ra-d", "{\"n\":\"d1\"}", false);
        List<String> later = new CopyOnWriteArrayList<>();
        whileFirstBatchAtServer.set(() -> {
            later.add(client.edits.addEdit(KEY, "ra-c", "{\"n\":\"c2\"}", false));   // its first edit was read ahead
            later.add(client.edits.addEdit(KEY, "ra-a", "{\"n\":\"a2\"}", false));   // its first edit is in flight
        });

        RunResult run = client.sync(KEY, TaskSource.MANUAL);

        assertThat(run.status()).as("run: %s", run).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(readAhead.get(0)).as("the batch read while the first was at the server").containsExactly(c, d);
        assertThat(sentBatches.get(0)).containsExactly(a, b);
        assertThat(sentBatches.get(1)).as("the read-ahead batch, sent after the first was confirmed").containsExactly(c, d);
        List<String> all = sentBatches.stream().flatMap(List::stream).toList();
        assertThat(all).as("every edit sent exactly once").containsExactlyInAnyOrder(a, b, c, d, later.get(0), later.get(1));
        assertThat(client.edits.outbox(KEY)).as("nothing left, no conflict").isEmpty();
        assertThat(record("ra-a")).isEqualTo("v2 {\"n\":\"a2\"}");
        assertThat(record("ra-c")).isEqualTo("v2 {\"n\":\"c2\"}");
        assertThat(record("ra-b")).isEqualTo("v1 {\"n\":\"b1\"}");
        assertThat(record("ra-d")).isEqualTo("v1 {\"n\":\"d1\"}");
    }

    @Test
    void aSetAsideEditSentAgainWhileABatchIsAtTheServerGoesBeforeTheLaterEditOfItsRecord() throws Exception {
        String a = client.edits.addEdit(KEY, "ra-a", "{\"n\":\"a1\"}", false);
        String b = client.edits.addEdit(KEY, "ra-b", "{\"n\":\"b1\"}", false);
        String first = client.edits.addEdit(KEY, "ra-r", "{\"n\":\"r1\"}", false);
        String second = client.edits.addEdit(KEY, "ra-r", "{\"n\":\"r2\"}", false);
        setAside(first);   // as if the server had refused it in an earlier run: it no longer holds back `second`
        whileFirstBatchAtServer.set(() -> assertThat(client.edits.sendAgain(KEY, first)).isTrue());

        RunResult run = client.sync(KEY, TaskSource.MANUAL);

        assertThat(run.status()).as("run: %s", run).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(KEY)).as("no conflict: `second` was rebased on what `first` produced").isEmpty();
        assertThat(record("ra-r")).isEqualTo("v2 {\"n\":\"r2\"}");
        assertThat(sentBatches).containsExactly(List.of(a, b), List.of(first), List.of(second));
        assertThat(firstReadAhead.getCount()).as("the read-ahead ran").isZero();
        assertThat(readAhead.get(0)).as("`second` has an earlier edit of its record: left to the ordinary read").isEmpty();
    }

    private String record(String id) {
        var r = client.edits.record(KEY, id).orElseThrow();
        return "v" + r.version() + " " + r.payloadJson();
    }

    private void setAside(String changeId) {
        store.database().transaction("set aside " + changeId, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'rejected',"
                    + " rejected_reason = 'refused earlier' WHERE change_id = ? AND state = 'pending'")) {
                ps.setString(1, changeId);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            return null;
        });
        assertThat(client.edits.entry(KEY, changeId).orElseThrow().isSetAside()).isTrue();
    }

    private SyncRemote holdingFirstPush(SyncRemote real) {
        return proxy(SyncRemote.class, real, (method, args) -> {
            Object result = invoke(real, method, args);
            if (method.getName().equals("push")) {
                sentBatches.add(((PushBatch) args[1]).changeIds());
                if (sentBatches.size() == 1) {
                    assertThat(firstReadAhead.await(30, TimeUnit.SECONDS)).as("the read-ahead read").isTrue();
                    whileFirstBatchAtServer.get().run();
                }
            }
            return result;
        });
    }

    private LocalData watchingReadAhead(LocalData real) {
        return proxy(LocalData.class, real, (method, args) -> {
            Object result = invoke(real, method, args);
            if (method.getName().equals("pendingOutboxAfter")) {
                @SuppressWarnings("unchecked")
                List<OutboxEntry> entries = (List<OutboxEntry>) result;
                readAhead.add(new ArrayList<>(entries.stream().map(OutboxEntry::changeId).toList()));
                firstReadAhead.countDown();
            }
            return result;
        });
    }

    private interface Call {
        Object handle(java.lang.reflect.Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T real, Call call) {
        InvocationHandler h = (p, method, args) -> method.getDeclaringClass() == Object.class
                ? method.invoke(real, args) : call.handle(method, args);
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
