package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.PostgresTest;

@PostgresTest
class ServerDatabaseConfigTest {

    private static final String URL = "jdbc:postgresql://db.example:5432/sync";

    @Test
    void aPostgresConfigNeverShowsItsPassword() {
        ServerDatabaseConfig.Postgres pg =
                new ServerDatabaseConfig.Postgres(URL + "?sslmode=require", "sync", "hunter2", 10);

        assertThat(pg.toString())
                .doesNotContain("hunter2")
                .contains("password=***")
                .contains("poolSize=10");
        assertThat(pg.describe()).isEqualTo("PostgreSQL " + URL + " as sync");
        assertThat(pg.safeUrl()).isEqualTo(URL);
        assertThat(ServerConfig.defaults().withDatabase(pg).toString()).doesNotContain("hunter2");
    }

    @Test
    void badPostgresValuesAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> new ServerDatabaseConfig.Postgres("jdbc:h2:mem:x", "u", "", 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'jdbc:h2:mem:x'");
        assertThatThrownBy(() -> new ServerDatabaseConfig.Postgres(URL + "?user=u&Password=hunter2", "u", "", 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("password")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> new ServerDatabaseConfig.Postgres(URL, " ", "", 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user");
        assertThatThrownBy(() -> new ServerDatabaseConfig.Postgres(URL, "u", "", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 0");
        assertThatThrownBy(() -> new ServerDatabaseConfig.Postgres(URL, "u", "", 201))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 201");
        assertThatThrownBy(() -> new ServerDatabaseConfig.Postgres(URL, "u", null, 10))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void theH2FormsOfServerConfigStayAsTheyWere() {
        Path dir = Path.of("/tmp/leasesync-server");

        assertThat(ServerConfig.defaults().database()).isEqualTo(new ServerDatabaseConfig.H2InMemory());
        assertThat(ServerConfig.defaults().dataDir()).isNull();
        assertThat(ServerConfig.defaults().withDataDir(dir).database()).isEqualTo(new ServerDatabaseConfig.H2File(dir));
        assertThat(ServerConfig.defaults().withDataDir(dir).dataDir()).isEqualTo(dir);
        assertThat(ServerConfig.defaults().withDataDir(dir).withDataDir(null).dataDir())
                .isNull();
        assertThat(ServerConfig.defaults()
                        .withDatabase(new ServerDatabaseConfig.Postgres(URL, "u", "", 3))
                        .dataDir())
                .isNull();
        assertThat(ServerConfig.defaults()
                        .withDatabase(new ServerDatabaseConfig.Postgres(URL, "u", "", 3))
                        .withSeed(Seed.NONE)
                        .database())
                .isInstanceOf(ServerDatabaseConfig.Postgres.class);
        assertThatThrownBy(() -> ServerConfig.defaults().withDataDir(Path.of(" ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataDir");
    }
}
