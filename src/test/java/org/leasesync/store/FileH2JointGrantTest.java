package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On the app's H2 file URL ({@link Database#fileUrl}: mixed mode, {@code WRITE_DELAY=0}) and its pool size. */
class FileH2JointGrantTest extends JointGrantContractTest {
    @TempDir
    Path dir;

    @Override
    Database open(UnaryOperator<DataSource> wrap) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        return Database.open(Database.fileUrl(data), "sa", "", data.toString(), 4, wrap);
    }

    @Test
    void theAppsFileUrlKeepsMoreParsedStatementsThanAStartUses() {
        String value = store.database().query("read the query cache size", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'QUERY_CACHE_SIZE'");
                 ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "(no such setting)";
            }
        });
        assertThat(value).isEqualTo("64");   // H2's default is 8; a started trigger runs ten distinct statements
    }
}
