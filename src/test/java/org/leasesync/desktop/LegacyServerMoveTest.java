package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.keyring.TokenVault;
import org.leasesync.lease.TimeSource;

/**
 * The token an older settings dialog kept in settings.json, in clear: moved to a signed-in account
 * (here the owner-only token file: no session bus), or dropped when it may not be used; every other
 * setting kept either way.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LegacyServerMoveTest {

    @TempDir
    Path dir;

    AccountService accounts() {
        return new AccountService(dir, Map.of(), TimeSource.system());
    }

    void settings(String server) throws Exception {
        Files.writeString(
                dir.resolve("settings.json"),
                "{ \"notifications\" : false, \"language\" : \"zh-CN\",\n" + "  \"server\" : " + server + " }\n");
    }

    @Test
    void aTokenBecomesASignedInAccountAndLeavesTheFile() throws Exception {
        settings("{ \"urls\" : [ \"https://sync.example.org/\" ], \"user\" : \"bob\", \"token\" : \"s3cret-t0ken\" }");
        LegacyServerMove.Result r = LegacyServerMove.run(dir, accounts()).orElseThrow();

        assertThat(r.outcome()).isEqualTo(LegacyServerMove.Outcome.MOVED);
        assertThat(r.name()).isEqualTo("bob on https://sync.example.org/");
        assertThat(r.keptIn()).hasValueSatisfying(k -> assertThat(k).contains("tokens.json"));
        Account bob = accounts().accounts().get(0);
        assertThat(bob.user()).isEqualTo("bob");
        assertThat(bob.tokenPlace()).isEqualTo(TokenVault.Place.FILE);
        assertThat(accounts().token(bob)).isEqualTo("s3cret-t0ken");
        String settings = Files.readString(dir.resolve("settings.json"));
        assertThat(settings)
                .doesNotContain("s3cret-t0ken", "server")
                .contains("\"notifications\" : false", "\"language\" : \"zh-CN\"");
        assertThat(LegacyServerMove.run(dir, accounts())).as("once only").isEmpty();
    }

    @Test
    void aTokenForPlainHttpToAnotherMachineIsDroppedUnused() throws Exception {
        settings("{ \"urls\" : [ \"http://192.168.1.20:8787/\" ], \"user\" : \"bob\", \"token\" : \"s3cret-t0ken\" }");
        LegacyServerMove.Result r = LegacyServerMove.run(dir, accounts()).orElseThrow();

        assertThat(r.outcome()).isEqualTo(LegacyServerMove.Outcome.DROPPED);
        assertThat(r.reason()).hasValueSatisfying(why -> assertThat(why).contains("plain http:// to another machine"));
        assertThat(accounts().accounts()).isEmpty();
        assertThat(Files.readString(dir.resolve("settings.json")))
                .doesNotContain("s3cret-t0ken", "server")
                .contains("\"language\" : \"zh-CN\"");
    }

    @Test
    void anEntryWithoutATokenOrWithABadUrlIsDropped() throws Exception {
        settings("{ \"urls\" : [ \"https://sync.example.org/\" ], \"user\" : \"bob\" }");
        assertThat(LegacyServerMove.run(dir, accounts()).orElseThrow().reason()).contains("the entry has no token");
        settings("{ \"urls\" : [ \"ftp://sync.example.org/\" ], \"user\" : \"bob\", \"token\" : \"t\" }");
        assertThat(LegacyServerMove.run(dir, accounts()).orElseThrow().outcome())
                .isEqualTo(LegacyServerMove.Outcome.DROPPED);
        assertThat(Files.readString(dir.resolve("settings.json"))).doesNotContain("server");
    }

    @Test
    void anUnreadableSettingsFileIsLeftToTheWindowWhichMovesItAside() throws Exception {
        Files.writeString(dir.resolve("settings.json"), "{ not json, \"server\" : { \"token\" : \"s3cret\" } ");
        assertThat(LegacyServerMove.run(dir, accounts())).isEmpty();
        assertThat(Files.readString(dir.resolve("settings.json"))).contains("s3cret");
    }
}
