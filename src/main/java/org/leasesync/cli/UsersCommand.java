package org.leasesync.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.server.store.AccountStore;
import org.leasesync.server.store.AccountStore.Account;
import org.leasesync.server.store.Passwords;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.server.store.ServerInstanceId;
import org.leasesync.server.store.SessionStore;
import org.leasesync.server.store.SessionStore.Session;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync users}: the server's accounts and sessions, in its database ({@code --data-dir}
 * or {@code --db}, exactly as {@code serve}). On PostgreSQL it works while {@code serve} instances
 * run, and they see a change at their next request (they cache no account or session). An H2 data
 * dir is one process's at a time (H2 locks its file), so there the server must be stopped first;
 * the command says so.
 *
 * <p>Exit codes: 0 done, 2 bad input (an existing or unknown name, a name outside
 * {@code [A-Za-z0-9._-]{1,64}}, an empty password, a password not given on standard input, an
 * unknown session) — nothing is changed then — and 1 when the database cannot be opened. Never
 * prints a password, a token or a hash. Each subcommand's {@code call} blocks on the database.
 */
@Command(
        name = "users",
        mixinStandardHelpOptions = true,
        description = "Manage the sync server's accounts and their sessions (devices).",
        subcommands = {
            UsersCommand.Add.class,
            UsersCommand.ListUsers.class,
            UsersCommand.Disable.class,
            UsersCommand.Enable.class,
            UsersCommand.Delete.class,
            UsersCommand.Sessions.class,
            UsersCommand.Revoke.class
        })
public final class UsersCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(
                spec.commandLine(),
                "users needs a subcommand: add, list, disable, enable, delete, " + "sessions or revoke");
    }

    /** What every subcommand shares: the database options, opening it, the name check. */
    abstract static class Base implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        ServerDbOptions database = new ServerDbOptions();

        /** Runs against the open database; returns the exit code. */
        abstract int run(ServerDatabase db, PrintWriter out) throws Exception;

        /** Checks what needs no database (before anything is opened). */
        void validate() {}

        /** Whether this subcommand may create a new database (only {@code add}). */
        boolean creates() {
            return false;
        }

        @Override
        public final Integer call() throws Exception {
            ServerDatabaseConfig cfg;
            try {
                validate();
                cfg = database.database(System.getenv());
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage());
            }
            if (cfg instanceof ServerDatabaseConfig.H2InMemory) {
                throw bad(
                        "'" + spec.qualifiedName() + "' needs --data-dir DIR or --db JDBC_URL: the server's database");
            }
            if (cfg instanceof ServerDatabaseConfig.H2File f
                    && !creates()
                    && !Files.exists(f.dataDir().resolve("leasesync-server.mv.db"))) {
                throw bad("there is no server database in " + f.dataDir() + " (leasesync-server.mv.db)");
            }
            ServerDatabase db;
            try {
                db = ServerDatabase.open(cfg, ServerInstanceId.create());
            } catch (RuntimeException e) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("leasesync: " + e.getMessage()
                        + (cfg instanceof ServerDatabaseConfig.H2File
                                ? ". An H2 data dir is one process's at a time: "
                                        + "stop the server on it, run this command, start the server again (or keep the server's data "
                                        + "in PostgreSQL, --db, where this works while servers run)"
                                : ""));
                err.flush();
                return 1;
            }
            try (db) {
                PrintWriter out = spec.commandLine().getOut();
                int code = run(db, out);
                out.flush();
                return code;
            }
        }

        ParameterException bad(String message) {
            return new ParameterException(spec.commandLine(), message);
        }

        void requireName(String name) {
            try {
                AccountStore.requireName(name);
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage());
            }
        }

        static AccountStore accounts(ServerDatabase db) {
            return new AccountStore(db, Clock.systemUTC());
        }
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Create an account. The password is read from standard input (one line; never an argument).")
    static final class Add extends Base {
        @Parameters(index = "0", paramLabel = "NAME", description = "1 to 64 characters of A-Z a-z 0-9 . _ -")
        String name;

        @Option(names = "--admin", description = "The account may use the admin endpoints.")
        boolean admin;

        @Option(names = "--password-stdin", description = "Read the password from standard input (required).")
        boolean passwordStdin;

        /** Refused on purpose: a password in the arguments shows in the process list and the shell history. */
        @Option(names = "--password", hidden = true, paramLabel = "PASSWORD")
        String passwordArgument;

        private String password;

        @Override
        void validate() {
            requireName(name);
            if (passwordArgument != null) {
                throw bad("--password is not accepted: a password in the arguments shows in the process list; "
                        + "give it on standard input with --password-stdin");
            }
            if (!passwordStdin) {
                throw bad("users add needs --password-stdin: the password is read from standard input, never taken "
                        + "as an argument");
            }
            password = readPassword(System.in);
            try {
                Passwords.requireValid(password);
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage() + " (read from standard input)");
            }
        }

        @Override
        boolean creates() {
            return true;
        }

        @Override
        int run(ServerDatabase db, PrintWriter out) throws Exception {
            try {
                accounts(db).create(name, Passwords.hash(password), admin);
            } catch (AccountStore.AccountExists e) {
                throw bad(e.getMessage());
            } finally {
                password = null;
            }
            out.println("added " + (admin ? "admin account " : "account ") + name);
            return 0;
        }

        /** The first line of {@code in}, without its line end; the whole text if it has none. */
        private String readPassword(InputStream in) {
            try {
                String text = Utf8Input.text(in.readAllBytes(), "the password on standard input");
                int end = text.indexOf('\n');
                String line = end < 0 ? text : text.substring(0, end);
                return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            } catch (IOException e) {
                throw bad("cannot read the password from standard input: " + e.getMessage());
            }
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List the accounts (never a password or hash).")
    static final class ListUsers extends Base {
        @Option(names = "--json", description = "Print JSON instead of a table.")
        boolean json;

        @Override
        int run(ServerDatabase db, PrintWriter out) throws Exception {
            List<Account> all = accounts(db).list();
            if (json) {
                out.println(Json.write(all.stream()
                        .map(a -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("name", a.name());
                            m.put("admin", a.admin());
                            m.put("disabled", a.disabled());
                            m.put("hasPassword", a.hasPassword());
                            m.put(
                                    "createdAt",
                                    Instant.ofEpochMilli(a.createdAtMs()).toString());
                            return m;
                        })
                        .toList()));
                return 0;
            }
            Table t = new Table("NAME", "ADMIN", "STATE", "PASSWORD", "CREATED");
            for (Account a : all) {
                t.row(
                        a.name(),
                        a.admin() ? "admin" : "-",
                        a.disabled() ? "disabled" : "enabled",
                        a.hasPassword() ? "set" : "none",
                        Instant.ofEpochMilli(a.createdAtMs()).toString());
            }
            t.print(out, "no accounts");
            return 0;
        }
    }

    /** Disable or enable: one flag, the same checks. */
    abstract static class SetDisabled extends Base {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        abstract boolean disabled();

        @Override
        void validate() {
            requireName(name);
        }

        @Override
        int run(ServerDatabase db, PrintWriter out) throws Exception {
            if (!accounts(db).setDisabled(name, disabled())) {
                throw bad("there is no account named '" + name + "'");
            }
            out.println((disabled() ? "disabled " : "enabled ")
                    + name
                    + (disabled() ? " (its sessions ended)" : " (it signs in again)"));
            return 0;
        }
    }

    @Command(
            name = "disable",
            mixinStandardHelpOptions = true,
            description = "Disable an account: it can no longer sign in, and every session of it ends.")
    static final class Disable extends SetDisabled {
        @Override
        boolean disabled() {
            return true;
        }
    }

    @Command(name = "enable", mixinStandardHelpOptions = true, description = "Enable a disabled account again.")
    static final class Enable extends SetDisabled {
        @Override
        boolean disabled() {
            return false;
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete an account with its sessions and all its data on the server.")
    static final class Delete extends Base {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        void validate() {
            requireName(name);
        }

        @Override
        int run(ServerDatabase db, PrintWriter out) throws Exception {
            if (!accounts(db).delete(name)) {
                throw bad("there is no account named '" + name + "'");
            }
            out.println("deleted " + name + " with its sessions and data");
            return 0;
        }
    }

    @Command(
            name = "sessions",
            mixinStandardHelpOptions = true,
            description = "List an account's live sessions (never a token).")
    static final class Sessions extends Base {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--json", description = "Print JSON instead of a table.")
        boolean json;

        @Option(
                names = "--session-idle",
                paramLabel = "DURATION",
                defaultValue = "90d",
                converter = DurationConverter.class,
                description = "The servers' --session-idle, for which sessions are live and when they end "
                        + "(default: ${DEFAULT-VALUE}).")
        Duration idle;

        @Override
        void validate() {
            requireName(name);
            if (idle.isNegative() || idle.isZero()) {
                throw bad("--session-idle must be positive");
            }
        }

        @Override
        int run(ServerDatabase db, PrintWriter out) throws Exception {
            if (accounts(db).find(name).isEmpty()) {
                throw bad("there is no account named '" + name + "'");
            }
            List<Session> live = new SessionStore(db, Clock.systemUTC(), idle).list(name);
            if (json) {
                out.println(Json.write(live.stream()
                        .map(s -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("sessionId", s.id());
                            m.put("device", s.device());
                            m.put(
                                    "createdAt",
                                    Instant.ofEpochMilli(s.createdAtMs()).toString());
                            m.put(
                                    "lastUsedAt",
                                    Instant.ofEpochMilli(s.lastUsedAtMs()).toString());
                            m.put(
                                    "expiresAt",
                                    Instant.ofEpochMilli(s.expiresAtMs()).toString());
                            return m;
                        })
                        .toList()));
                return 0;
            }
            Table t = new Table("SESSION", "DEVICE", "CREATED", "LAST USED", "EXPIRES");
            for (Session s : live) {
                t.row(
                        s.id(),
                        s.device(),
                        Instant.ofEpochMilli(s.createdAtMs()).toString(),
                        Instant.ofEpochMilli(s.lastUsedAtMs()).toString(),
                        Instant.ofEpochMilli(s.expiresAtMs()).toString());
            }
            t.print(out, "no live sessions of " + name);
            return 0;
        }
    }

    @Command(
            name = "revoke",
            mixinStandardHelpOptions = true,
            description = "End one session of an account (by its id, from 'users sessions'), or all of them.")
    static final class Revoke extends Base {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1", arity = "0..1", paramLabel = "SESSION_ID", description = "Default: every session.")
        String sessionId;

        @Override
        void validate() {
            requireName(name);
        }

        @Override
        int run(ServerDatabase db, PrintWriter out) throws Exception {
            if (accounts(db).find(name).isEmpty()) {
                throw bad("there is no account named '" + name + "'");
            }
            SessionStore sessions = new SessionStore(db, Clock.systemUTC(), Duration.ofDays(1));
            if (sessionId == null) {
                out.println("revoked " + sessions.revokeAll(name) + " session(s) of " + name);
            } else if (sessions.revoke(name, sessionId)) {
                out.println("revoked session " + sessionId + " of " + name);
            } else {
                throw bad("'" + name + "' has no session " + sessionId);
            }
            return 0;
        }
    }
}
