package org.leasesync.store;

class InMemoryH2RegistryContractTest extends RegistryContractTest {
    @Override
    LocalStore open() {
        return LocalStore.openInMemory();
    }
}
