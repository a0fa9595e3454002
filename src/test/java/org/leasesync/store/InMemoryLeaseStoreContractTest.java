package org.leasesync.store;

import java.time.Duration;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseStore;
import org.leasesync.testing.InMemoryLeaseStore;

/** The lease contract on the in-memory lease store: it answers as the SQL store does. */
class InMemoryLeaseStoreContractTest extends LeaseContractTest {

    private InMemoryLeaseStore memory;

    @Override
    LeaseStore openLeases() {
        memory = new InMemoryLeaseStore();
        return memory;
    }

    @Override
    void damageOwner(LeaseKey key, String ownerText) {
        memory.damage(key, ownerText, memory.read(key).orElseThrow().ttl());
    }

    @Override
    void damageTtl(LeaseKey key, Duration ttl) {
        memory.damage(key, memory.read(key).orElseThrow().ownerText(), ttl);
    }
}
