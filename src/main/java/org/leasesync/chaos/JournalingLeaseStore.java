package org.leasesync.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;

/**
 * The lease table with grants, renewals and releases journaled. A {@code grant} or {@code renew}
 * event is written right after the write committed, so its {@code mono} is an upper bound of the
 * write's time, and carries {@code began}, the monotonic time before the write was sent (a lower
 * bound): the stolen-lease check needs both (a takeover must come a whole TTL after the holder's
 * last heartbeat began, unless the holder was killed). Thread-safe as the delegate is.
 */
final class JournalingLeaseStore implements LeaseStore {

    private final LeaseStore delegate;
    private final Journal journal;

    JournalingLeaseStore(LeaseStore delegate, Journal journal) {
        this.delegate = delegate;
        this.journal = journal;
    }

    @Override
    public Optional<LeaseRecord> tryGrant(
            LeaseKey key, OwnerId owner, Duration ttl, Instant now, Optional<LeaseRecord> takeOver) {
        long began = System.nanoTime();
        Optional<LeaseRecord> granted = delegate.tryGrant(key, owner, ttl, now, takeOver);
        granted.ifPresent(g -> {
            ObjectNode e = journal.event("grant");
            e.put("began", began);
            e.put("key", key.asString());
            e.put("epoch", g.epoch());
            e.put("owner", owner.asString());
            takeOver.ifPresent(t -> {
                e.put("tookOverEpoch", t.epoch());
                e.put("tookOverOwner", t.ownerText() == null ? "" : t.ownerText());
            });
            journal.write(e);
        });
        return granted;
    }

    @Override
    public boolean renew(Fence fence, Duration ttl, Instant now) {
        long began = System.nanoTime();
        boolean renewed = delegate.renew(fence, ttl, now);
        if (renewed) {
            ObjectNode e = journal.event("renew");
            e.put("began", began);
            e.put("key", fence.key().asString());
            e.put("epoch", fence.epoch());
            e.put("owner", fence.owner().asString());
            journal.write(e);
        }
        return renewed;
    }

    @Override
    public boolean release(Fence fence, Instant now) {
        boolean released = delegate.release(fence, now);
        if (released) {
            ObjectNode e = journal.event("release");
            e.put("key", fence.key().asString());
            e.put("epoch", fence.epoch());
            journal.write(e);
        }
        return released;
    }

    @Override
    public boolean raiseEpoch(Fence fence, long newEpoch, Instant now) {
        boolean raised = delegate.raiseEpoch(fence, newEpoch, now);
        if (raised) {
            // The holder now holds the new epoch: for the checker, a grant of it to the same owner.
            ObjectNode e = journal.event("grant");
            e.put("key", fence.key().asString());
            e.put("epoch", newEpoch);
            e.put("owner", fence.owner().asString());
            e.put("raisedFromEpoch", fence.epoch());
            journal.write(e);
        }
        return raised;
    }

    @Override
    public Optional<LeaseRecord> read(LeaseKey key) {
        return delegate.read(key);
    }

    @Override
    public List<LeaseRecord> readAll() {
        return delegate.readAll();
    }
}
