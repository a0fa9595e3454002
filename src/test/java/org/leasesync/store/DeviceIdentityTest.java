package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.testing.ProcessTest;

/**
 * A data directory's client id against real H2 files and real copies ({@code cp -a}): the same
 * directory keeps its id, also after a rename; a copy mints a new one (the old kept as where it came
 * from) and keeps its outbox; a row from before bindings is bound in place; threads opening a copy at
 * once mint one id between them.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ProcessTest
class DeviceIdentityTest {

    static final TaskKey KEY = TaskKey.of("alice", "backup");

    @TempDir
    Path tmp;

    @Test
    void theSameDirectoryKeepsItsIdAndACopyGetsOneOfItsOwn() throws Exception {
        Path a = tmp.resolve("A");
        String id;
        try (LocalStore store = LocalStore.openFile(a)) {
            DeviceIdentity.Bound first = bind(store, a);
            assertThat(first.copiedFrom()).isEmpty();
            id = first.clientId();
            assertThat(bind(store, a)).isEqualTo(first);
            new JdbcLocalEdits(store.database(), TimeSource.system()).addEdit(KEY, "r1", "{\"v\":1}", false);
        }
        Path b = tmp.resolve("B");
        copy(a, b);
        try (LocalStore store = LocalStore.openFile(b)) {
            DeviceIdentity.Bound copied = bind(store, b);
            assertThat(copied.clientId()).isNotEqualTo(id);
            assertThat(copied.copiedFrom()).contains(id);
            assertThat(bind(store, b))
                    .as("noticed once")
                    .isEqualTo(new DeviceIdentity.Bound(copied.clientId(), Optional.empty()));
            assertThat(new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(KEY))
                    .as("unsent edits kept")
                    .hasSize(1);
            assertThat(column(store, "previous_client_id")).isEqualTo(id);
        }
        try (LocalStore store = LocalStore.openFile(a)) {
            assertThat(bind(store, a)).isEqualTo(new DeviceIdentity.Bound(id, Optional.empty()));
        }
    }

    @Test
    void aMovedDirectoryKeepsItsIdAndRecordsItsNewPath() throws Exception {
        Path a = tmp.resolve("A");
        String id;
        try (LocalStore store = LocalStore.openFile(a)) {
            id = bind(store, a).clientId();
        }
        Path moved = Files.move(a, tmp.resolve("moved"));
        try (LocalStore store = LocalStore.openFile(moved)) {
            assertThat(bind(store, moved)).isEqualTo(new DeviceIdentity.Bound(id, Optional.empty()));
            assertThat(column(store, "dir_path")).isEqualTo(moved.toRealPath().toString());
        }
    }

    @Test
    void aRowFromBeforeBindingsIsBoundInPlace() throws Exception {
        Path a = tmp.resolve("A");
        try (LocalStore store = LocalStore.openFile(a)) {
            String old =
                    new JdbcLocalEdits(store.database(), TimeSource.system()).clientId(); // as an older version made it
            assertThat(column(store, "machine_id")).isNull();
            assertThat(bind(store, a)).isEqualTo(new DeviceIdentity.Bound(old, Optional.empty()));
            assertThat(column(store, "dir_key")).isNotNull();
        }
    }

    @Test
    void threadsOpeningACopyAtOnceMintOneIdBetweenThem() throws Exception {
        Path a = tmp.resolve("A");
        try (LocalStore store = LocalStore.openFile(a)) {
            bind(store, a);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 5; round++) {
                Path b = tmp.resolve("B" + round);
                copy(a, b);
                try (LocalStore store = LocalStore.openFile(b)) {
                    CyclicBarrier start = new CyclicBarrier(4);
                    List<Future<DeviceIdentity.Bound>> all = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        all.add(pool.submit(() -> {
                            start.await(10, TimeUnit.SECONDS);
                            return bind(store, b);
                        }));
                    }
                    List<DeviceIdentity.Bound> got = new ArrayList<>();
                    for (Future<DeviceIdentity.Bound> f : all) {
                        got.add(f.get(60, TimeUnit.SECONDS));
                    }
                    assertThat(got.stream().map(DeviceIdentity.Bound::clientId).distinct())
                            .hasSize(1);
                    assertThat(got.stream().filter(g -> g.copiedFrom().isPresent()))
                            .hasSize(1);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static DeviceIdentity.Bound bind(LocalStore store, Path dir) {
        return DeviceIdentity.bind(store.database(), DeviceIdentity.Place.of(dir));
    }

    private static void copy(Path from, Path to) throws Exception {
        Process cp = new ProcessBuilder("cp", "-a", from.toString(), to.toString())
                .inheritIO()
                .start();
        assertThat(cp.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(cp.exitValue()).isZero();
    }

    private static String column(LocalStore store, String name) {
        return store.database().query("read " + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + name + " FROM client_identity WHERE id = 1");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        });
    }
}
