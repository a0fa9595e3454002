package org.leasesync.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.store.h2.DataDirectory;

/** On the app's H2 file URL ({@link Database#fileUrl}: mixed mode, {@code WRITE_DELAY=0}) and its pool size. */
class FileH2JointGrantTest extends JointGrantContractTest {
    @TempDir
    Path dir;

    @Override
    Database open(UnaryOperator<DataSource> wrap) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        return Database.open(DataDirectory.fileUrl(data), "sa", "", data.toString(), 4, wrap);
    }
}
