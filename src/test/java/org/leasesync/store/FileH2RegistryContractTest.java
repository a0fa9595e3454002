package org.leasesync.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileH2RegistryContractTest extends RegistryContractTest {
    @TempDir
    Path dir;

    @Override
    LocalStore open() {
        return LocalStore.openFile(dir.resolve("data"));
    }
}
