package org.leasesync.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;

/** A lease store that forwards every call to another; a test overrides what it disturbs (a slow or lost answer, a race). */
public class ForwardingLeaseStore implements LeaseStore {
    private final LeaseStore d;

    public ForwardingLeaseStore(LeaseStore d) {
        this.d = d;
    }

    @Override
    public Optional<LeaseRecord> tryGrant(
            LeaseKey key, OwnerId owner, Duration ttl, Instant now, Optional<LeaseRecord> takeOver) {
        return d.tryGrant(key, owner, ttl, now, takeOver);
    }

    @Override
    public Optional<LeaseRecord> grantIfFree(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        return d.grantIfFree(key, owner, ttl, now);
    }

    @Override
    public Optional<LeaseRecord> grantIfNew(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        return d.grantIfNew(key, owner, ttl, now);
    }

    @Override
    public boolean renew(Fence fence, Duration ttl, Instant now) {
        return d.renew(fence, ttl, now);
    }

    @Override
    public boolean release(Fence fence, Instant now) {
        return d.release(fence, now);
    }

    @Override
    public boolean raiseEpoch(Fence fence, long newEpoch, Instant now) {
        return d.raiseEpoch(fence, newEpoch, now);
    }

    @Override
    public Optional<LeaseRecord> read(LeaseKey key) {
        return d.read(key);
    }

    @Override
    public List<LeaseRecord> readAll() {
        return d.readAll();
    }
}
