package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.keyring.TokenFile;
import org.leasesync.keyring.TokenVault;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code leasesync accounts}: the signed-in accounts and where each one's token is kept. Never a token. */
@Command(
        name = "accounts",
        mixinStandardHelpOptions = true,
        description = {
            "List the signed-in accounts: server, user, where the session token is kept, when signed in.",
            "Exit codes: 0; 1 the accounts file cannot be read; 2 usage error."
        })
public final class AccountsCommand implements Callable<Integer> {

    @Mixin
    DataDirMixin dataDir;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        java.nio.file.Path dir = dataDir.resolve();
        List<Account> accounts = AccountService.forThisProcess(dir).accounts();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Map<String, Object>> rows = accounts.stream()
                    .map(a -> {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("server", a.server());
                        m.put(
                                "servers",
                                a.servers().urls().stream()
                                        .map(Object::toString)
                                        .toList());
                        m.put("user", a.user());
                        m.put("tokenKeptIn", a.tokenPlace().wireName());
                        m.put(
                                "tokenFile",
                                a.tokenPlace() == TokenVault.Place.FILE
                                        ? new TokenFile(dir).path().toString()
                                        : null);
                        m.put("caFile", a.caFile().map(Object::toString).orElse(null));
                        m.put("allowInsecureHttp", a.allowInsecureHttp());
                        m.put("signedInAt", a.signedInAt().toString());
                        return m;
                    })
                    .toList();
            out.println(Json.write(Map.of("accounts", rows)));
            return 0;
        }
        Table t = new Table("SERVER", "USER", "TOKEN KEPT IN", "SIGNED IN");
        for (Account a : accounts) {
            t.row(
                    String.join(
                            ",",
                            a.servers().urls().stream().map(Object::toString).toList()),
                    a.user(),
                    a.tokenPlace() == TokenVault.Place.KEYRING
                            ? "desktop keyring"
                            : "file " + new TokenFile(dir).path(),
                    Views.local(a.signedInAt()));
        }
        t.print(
                out,
                "(no account is signed in; sign in with: leasesync login --server URL --user NAME --password-stdin)");
        return 0;
    }
}
