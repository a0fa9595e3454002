package org.leasesync.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;

/**
 * A {@link LeaseStore} in memory that answers as the SQL one ({@code JdbcLeaseStore}) does: the same
 * conditional writes on the same six columns, each one atomic, so a unit test of the lease policy
 * runs on the store the product uses in everything but the database. The lease contract test runs
 * against it ({@code InMemoryLeaseStoreContractTest}) to keep it that way.
 *
 * <p>What the SQL store keeps it keeps too: the owner as its written text (a row can name an owner
 * that cannot be parsed, see {@link #damage}), times in whole milliseconds, no expiry column (it is
 * {@code renewedAt + ttl} for a held key and the release time for a free one), the epoch kept on
 * release. It never fails: no method throws {@code StoreException}.
 *
 * <p>Thread-safe: every write is one atomic step on the key's row ({@link ConcurrentHashMap#compute}),
 * the in-memory counterpart of the SQL store's single conditional statement. Never blocks for long.
 */
public final class InMemoryLeaseStore implements LeaseStore {

    /** The stored row, as the SQL table holds it: written key, owner text (null when free), counters, millis. */
    private record Row(
            String key, @Nullable String ownerText, long epoch, long heartbeat, long ttlMs, long renewedAtMs) {}

    /** By the key's written form, as the table's primary key. */
    private final Map<String, Row> rows = new ConcurrentHashMap<>();

    /** The order of {@code ORDER BY task_key} in the SQL store: by code point (PostgreSQL's {@code COLLATE "C"}). */
    private static final Comparator<String> BY_CODE_POINT = (x, y) -> {
        int i = 0;
        int j = 0;
        while (i < x.length() && j < y.length()) {
            int a = x.codePointAt(i);
            int b = y.codePointAt(j);
            if (a != b) {
                return Integer.compare(a, b);
            }
            i += Character.charCount(a);
            j += Character.charCount(b);
        }
        return Boolean.compare(i < x.length(), j < y.length());
    };

    @Override
    public Optional<LeaseRecord> tryGrant(
            LeaseKey key, OwnerId owner, Duration ttl, Instant now, Optional<LeaseRecord> takeOver) {
        Objects.requireNonNull(takeOver, "takeOver");
        // As the SQL store's conditional update: a free row, or exactly the observed holder's row
        String seenOwner =
                takeOver.map(t -> t.ownerText() == null ? "" : t.ownerText()).orElse(null);
        Optional<LeaseRecord> updated = update(
                key,
                owner,
                ttl,
                now,
                r -> r.ownerText() == null
                        || (seenOwner != null
                                && seenOwner.equals(r.ownerText())
                                && r.epoch() == takeOver.get().epoch()
                                && r.heartbeat() == takeOver.get().heartbeat()));
        if (updated.isPresent() || takeOver.isPresent()) {
            return updated;
        }
        return grantIfNew(key, owner, ttl, now);
    }

    @Override
    public Optional<LeaseRecord> grantIfFree(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        return update(key, owner, ttl, now, r -> r.ownerText() == null);
    }

    @Override
    public Optional<LeaseRecord> grantIfNew(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        Row fresh = new Row(key.asString(), owner.asString(), 1, 1, ttl.toMillis(), now.toEpochMilli());
        return rows.putIfAbsent(fresh.key(), fresh) == null ? Optional.of(map(fresh)) : Optional.empty();
    }

    /** The grant's conditional update: epoch and heartbeat up by one, if the row exists and {@code when} holds. */
    private Optional<LeaseRecord> update(
            LeaseKey key, OwnerId owner, Duration ttl, Instant now, java.util.function.Predicate<Row> when) {
        AtomicReference<@Nullable Row> granted = new AtomicReference<>();
        rows.computeIfPresent(key.asString(), (k, r) -> {
            if (!when.test(r)) {
                return r;
            }
            Row next =
                    new Row(k, owner.asString(), r.epoch() + 1, r.heartbeat() + 1, ttl.toMillis(), now.toEpochMilli());
            granted.set(next);
            return next;
        });
        return Optional.ofNullable(granted.get()).map(InMemoryLeaseStore::map);
    }

    @Override
    public boolean renew(Fence fence, Duration ttl, Instant now) {
        return updateFenced(
                fence,
                r -> new Row(r.key(), r.ownerText(), r.epoch(), r.heartbeat() + 1, ttl.toMillis(), now.toEpochMilli()));
    }

    @Override
    public boolean release(Fence fence, Instant now) {
        return updateFenced(
                fence, r -> new Row(r.key(), null, r.epoch(), r.heartbeat() + 1, r.ttlMs(), now.toEpochMilli()));
    }

    /** @throws IllegalArgumentException if {@code newEpoch} is not above the fence's epoch (as the SQL store) */
    @Override
    public boolean raiseEpoch(Fence fence, long newEpoch, Instant now) {
        if (newEpoch <= fence.epoch()) {
            throw new IllegalArgumentException("the new epoch must be above " + fence.epoch() + ", got " + newEpoch);
        }
        return updateFenced(
                fence,
                r -> new Row(r.key(), r.ownerText(), newEpoch, r.heartbeat() + 1, r.ttlMs(), now.toEpochMilli()));
    }

    /** {@code UPDATE ... WHERE task_key = ? AND owner_id = ? AND epoch = ?}: true if the row matched. */
    private boolean updateFenced(Fence fence, UnaryOperator<Row> change) {
        String ownerText = fence.owner().asString();
        AtomicReference<@Nullable Row> changed = new AtomicReference<>();
        rows.computeIfPresent(fence.key().asString(), (k, r) -> {
            if (!ownerText.equals(r.ownerText()) || r.epoch() != fence.epoch()) {
                return r;
            }
            Row next = change.apply(r);
            changed.set(next);
            return next;
        });
        return changed.get() != null;
    }

    @Override
    public Optional<LeaseRecord> read(LeaseKey key) {
        return Optional.ofNullable(rows.get(key.asString())).map(InMemoryLeaseStore::map);
    }

    @Override
    public List<LeaseRecord> readAll() {
        List<Row> all = new ArrayList<>(rows.values());
        all.sort(Comparator.comparing(Row::key, BY_CODE_POINT));
        return all.stream().map(InMemoryLeaseStore::map).toList();
    }

    /**
     * Overwrites a row's owner text and TTL as a damaged or hand-edited table would hold them, for
     * tests of how the policy treats such a row; epoch and heartbeat are kept.
     *
     * @param ownerText any text, also one no owner id parses from; null frees the key
     * @throws IllegalStateException if the key has no row
     */
    public void damage(LeaseKey key, @Nullable String ownerText, Duration ttl) {
        Row r = rows.computeIfPresent(
                key.asString(),
                (k, old) -> new Row(k, ownerText, old.epoch(), old.heartbeat(), ttl.toMillis(), old.renewedAtMs()));
        if (r == null) {
            throw new IllegalStateException(key + " has no lease row to damage");
        }
    }

    /** As the SQL store maps a row: an owner text no owner id parses from is kept as text, the key still held. */
    private static LeaseRecord map(Row r) {
        Optional<OwnerId> owner = Optional.empty();
        if (r.ownerText() != null) {
            try {
                owner = Optional.of(OwnerId.parse(r.ownerText()));
            } catch (IllegalArgumentException e) {
                owner = Optional.empty(); // unreadable: ownerText still says the key is held
            }
        }
        long expiresMs = r.ownerText() == null ? r.renewedAtMs() : r.renewedAtMs() + r.ttlMs();
        return new LeaseRecord(
                LeaseKey.parse(r.key()),
                owner,
                r.epoch(),
                r.heartbeat(),
                Duration.ofMillis(r.ttlMs()),
                Instant.ofEpochMilli(r.renewedAtMs()),
                Instant.ofEpochMilli(expiresMs),
                r.ownerText());
    }

    @Override
    public String toString() {
        return "in-memory lease store (" + rows.size() + " rows)";
    }
}
