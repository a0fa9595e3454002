package org.leasesync.desktop.fx;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.leasesync.client.NamedThreads;
import org.leasesync.desktop.Messages;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Coordinator;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.faults.FaultSettings;

/**
 * QA tools: fire every trigger at once from several threads, watch the lease table, and flip the
 * embedded server's fault switches. Off the main path (its own window).
 */
public final class QaViewModel {

    /** A lease row as shown. */
    public record LeaseRow(String key, String state, String owner, String epoch, String expiresIn) {}

    private final Coordinator coordinator;
    private final TaskRegistry registry;
    private final Optional<ReferenceServer> server;
    private final MainViewModel main;
    private final Executor background;
    private final Executor ui;
    private final TimeSource time;
    private final Messages m;
    private final ObservableList<LeaseRow> leases = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper fireResult = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper serverStats = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper faultMessage = new ReadOnlyStringWrapper("");

    /** @param messages the window's language */
    public QaViewModel(
            Coordinator coordinator,
            TaskRegistry registry,
            Optional<ReferenceServer> server,
            MainViewModel main,
            Executor background,
            Executor ui,
            TimeSource time,
            Messages messages) {
        this.m = java.util.Objects.requireNonNull(messages, "messages");
        this.coordinator = coordinator;
        this.registry = registry;
        this.server = server;
        this.main = main;
        this.background = background;
        this.ui = ui;
        this.time = time;
    }

    /** The texts of the QA tools window, in the window's language. */
    public Messages messages() {
        return m;
    }

    public ObservableList<LeaseRow> leases() {
        return leases;
    }

    public ReadOnlyStringProperty fireResultProperty() {
        return fireResult.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty serverStatsProperty() {
        return serverStats.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty faultMessageProperty() {
        return faultMessage.getReadOnlyProperty();
    }

    /** Whether fault switches are available (only for the embedded server). */
    public boolean hasEmbeddedServer() {
        return server.isPresent();
    }

    /**
     * Fires schedule, foreground and manual triggers at once, {@code times} times each, from three
     * threads, for every scope of the signed-in user. Blocks the background executor, not the caller.
     */
    public void fireAll(int times) {
        String user = main.currentUser();
        int n = Math.max(1, Math.min(times, 10_000));
        fireResult.set(m.get("qa.firing", 3 * Scope.values().length * n));
        background.execute(() -> {
            AtomicInteger started = new AtomicInteger();
            AtomicInteger joined = new AtomicInteger();
            AtomicInteger skipped = new AtomicInteger();
            AtomicInteger other = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(3, new NamedThreads("qa-fire", true));
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (TaskSource source : List.of(TaskSource.SCHEDULE, TaskSource.FOREGROUND, TaskSource.MANUAL)) {
                    fs.add(threads.submit(() -> {
                        for (int i = 0; i < n; i++) {
                            for (Scope s : Scope.values()) {
                                SubmitResult r = coordinator.submit(new TaskKey(user, s), source);
                                (r instanceof SubmitResult.Started
                                                ? started
                                                : r instanceof SubmitResult.Joined
                                                        ? joined
                                                        : r instanceof SubmitResult.Skipped ? skipped : other)
                                        .incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
                String text = m.get(
                        "qa.fired",
                        3 * Scope.values().length * n,
                        started.get(),
                        joined.get(),
                        (skipped.get() > 0 ? m.get("qa.fired.skipped", skipped.get()) : "")
                                + (other.get() > 0 ? m.get("qa.fired.other", other.get()) : ""));
                ui.execute(() -> fireResult.set(text));
            } catch (Exception e) {
                ui.execute(() -> fireResult.set(m.get("qa.fireStopped", e.getMessage())));
            } finally {
                threads.shutdown();
            }
            refresh();
        });
    }

    /** Re-reads the lease table and the server's statistics. */
    public void refresh() {
        background.execute(() -> {
            Instant now = time.now();
            List<LeaseRow> rows = new ArrayList<>();
            for (LeaseRecord l : registry.leases()) {
                rows.add(new LeaseRow(
                        l.key().asString(),
                        m.get(l.isHeld() ? "qa.lease.held" : "qa.lease.free"),
                        l.isHeld() ? l.ownerText() : "—",
                        Long.toString(l.epoch()),
                        !l.isHeld()
                                ? "—"
                                : l.expiresInBy(now)
                                        .map(d -> m.duration(java.time.Duration.ofSeconds(d.toSeconds())))
                                        .orElse(m.get("qa.expiresUnknown"))));
            }
            String stats = server.map(s -> {
                        var st = s.stats();
                        return m.get(
                                "qa.stats",
                                st.requests(),
                                st.pushes(),
                                st.changesApplied(),
                                st.mostApplicationsOfOneChange(),
                                st.runOverlaps());
                    })
                    .orElse(m.get("qa.stats.external"));
            ui.execute(() -> {
                leases.setAll(rows);
                serverStats.set(stats);
            });
        });
    }

    /**
     * The fault switches of the embedded server as the QA window's fields show them: latency and
     * delay in milliseconds, the others in percent of requests; all zero without an embedded server.
     */
    public record FaultInputs(int latencyMs, int failPush, int dropAfterApply, int delayAfterApplyMs, int throttle) {}

    /** The embedded server's current fault switches, for the QA window's fields (zeros without one). */
    public FaultInputs faultInputs() {
        FaultSettings f = server.map(s -> s.faults().snapshot()).orElse(FaultSettings.NONE);
        return new FaultInputs(
                (int) f.latencyMs(), f.failPush(), f.dropAfterApply(), (int) f.delayAfterApplyMs(), f.throttle());
    }

    /**
     * Sets the embedded server's fault switches.
     *
     * @return false (with a message) if there is no embedded server or a value is negative
     */
    public boolean applyFaults(long latencyMs, int failPush, int dropAfterApply, long delayAfterApplyMs, int throttle) {
        if (server.isEmpty()) {
            faultMessage.set(m.get("qa.faults.unavailable"));
            return false;
        }
        try {
            server.get()
                    .faults()
                    .set(new FaultSettings(latencyMs, failPush, dropAfterApply, delayAfterApplyMs, throttle));
            faultMessage.set(m.get(
                    "qa.faults.set",
                    m.duration(java.time.Duration.ofMillis(latencyMs)),
                    failPush,
                    dropAfterApply,
                    m.duration(java.time.Duration.ofMillis(delayAfterApplyMs)),
                    throttle));
            return true;
        } catch (IllegalArgumentException e) {
            faultMessage.set(e.getMessage());
            return false;
        }
    }
}
