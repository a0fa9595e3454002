package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.leasesync.server.protocol.Scopes;

/**
 * The server's accounts (table {@code sync_users}): name, Argon2id password hash (or none), admin
 * flag, disabled flag, creation time. Nothing is cached: every read goes to the database, so a
 * change made by one process (another instance, {@code leasesync users}) is seen by every other at
 * its next request.
 *
 * <p>Thread-safe; every method blocks on the database. Creating an account is safe across
 * instances that share a database (a duplicate key means another one was first).
 */
public final class AccountStore {

    /** What an account name (and a user id in a path) must match. */
    public static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** Tables holding a user's data, deleted with the account (sessions go by the foreign key). */
    private static final List<String> USER_TABLES = List.of(
            "sync_records",
            "applied_changes",
            "idempotency_keys",
            "idempotency_claims",
            "fencing_tokens",
            "run_intervals",
            "tombstone_horizons",
            "scope_history",
            "scope_state");

    /**
     * One account, never with its password hash.
     *
     * @param createdAtMs epoch milliseconds of the server clock
     * @param hasPassword false for an account that cannot sign in with a password
     */
    public record Account(String name, boolean admin, boolean disabled, long createdAtMs, boolean hasPassword) {}

    /** An account as sign-in needs it: with its hash (null for none). */
    public record Credentials(String name, boolean admin, boolean disabled, String passwordHash) {
        @Override
        public String toString() {
            return "Credentials[name=" + name + ", admin=" + admin + ", disabled=" + disabled + ", passwordHash=***]";
        }
    }

    /** Thrown by {@link #create} when the name is taken. */
    public static final class AccountExists extends Exception {
        private static final long serialVersionUID = 1L;

        AccountExists(String name) {
            super("an account named '" + name + "' exists already");
        }
    }

    private final ServerDatabase db;
    private final Clock clock;

    public AccountStore(ServerDatabase db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    /**
     * Creates an account with empty scopes.
     *
     * @param passwordHash from {@link Passwords#hash}, or null for an account without a password
     * @throws AccountExists if the name is taken (here or by another instance at the same moment)
     * @throws IllegalArgumentException if the name does not match {@link #USER_NAME}
     */
    public void create(String name, String passwordHash, boolean admin) throws SQLException, AccountExists {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                if (exists(c, name)) {
                    throw new AccountExists(name);
                }
                insert(c, name, passwordHash, admin);
                c.commit();
            } catch (SQLException e) {
                DatabaseErrors.rollbackAfter(c, e);
                if (DatabaseErrors.isUniqueViolation(e)) {
                    throw new AccountExists(name);
                }
                throw e;
            } catch (RuntimeException | AccountExists e) {
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
        }
    }

    /**
     * Creates the account without a password unless it exists; an existing one is left as it is
     * (its flags too). Returns whether it was created here.
     *
     * @throws IllegalArgumentException if the name does not match {@link #USER_NAME}
     */
    public boolean ensure(String name, boolean admin) throws SQLException {
        try {
            create(name, null, admin);
            return true;
        } catch (AccountExists e) {
            return false;
        }
    }

    /**
     * Inserts an account and a {@code scope_state} row per scope in the caller's transaction.
     *
     * @throws IllegalArgumentException if the name does not match {@link #USER_NAME}
     */
    public void insert(Connection c, String name, String passwordHash, boolean admin) throws SQLException {
        requireName(name);
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO sync_users (user_id, password_hash, is_admin, disabled, created_at_ms)"
                        + " VALUES (?, ?, ?, FALSE, ?)")) {
            ps.setString(1, name);
            ps.setString(2, passwordHash);
            ps.setBoolean(3, admin);
            ps.setLong(4, clock.millis());
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO scope_state (user_id, scope, last_seq) VALUES (?, ?, 0)")) {
            for (String scope : Scopes.ALL) {
                ps.setString(1, name);
                ps.setString(2, scope);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** True if the account exists, read through {@code c}. */
    public static boolean exists(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM sync_users WHERE user_id = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** The account, or empty. */
    public Optional<Account> find(String name) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(SELECT + " WHERE user_id = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(account(rs)) : Optional.empty();
            }
        }
    }

    /** Every account, by name. */
    public List<Account> list() throws SQLException {
        List<Account> all = new ArrayList<>();
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(SELECT + " ORDER BY user_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(account(rs));
            }
        }
        return all;
    }

    /** What sign-in compares with, or empty for no such account. */
    public Optional<Credentials> credentials(String name) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT user_id, is_admin, disabled, password_hash FROM sync_users WHERE user_id = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(
                                new Credentials(rs.getString(1), rs.getBoolean(2), rs.getBoolean(3), rs.getString(4)))
                        : Optional.empty();
            }
        }
    }

    /** Sets the password hash of an account that has none; false if it has one or does not exist. */
    public boolean setPasswordIfNone(String name, String passwordHash) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE sync_users SET password_hash = ? WHERE user_id = ? AND password_hash IS NULL")) {
            ps.setString(1, passwordHash);
            ps.setString(2, name);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * Disables or enables the account. Disabling also ends every session of it, in the same
     * transaction, so enabling it again brings none of them back. Returns false for no such account.
     */
    public boolean setDisabled(String name, boolean disabled) throws SQLException {
        return inTransaction(c -> {
            int n;
            try (PreparedStatement ps = c.prepareStatement("UPDATE sync_users SET disabled = ? WHERE user_id = ?")) {
                ps.setBoolean(1, disabled);
                ps.setString(2, name);
                n = ps.executeUpdate();
            }
            if (disabled && n > 0) {
                deleteWhereUser(c, "user_sessions", name);
            }
            return n > 0;
        });
    }

    /**
     * Deletes the account, its sessions and all its data (records, change ids, idempotency keys,
     * fencing tokens, history) in one transaction. Returns false for no such account. The audit
     * log keeps its rows: it is a record of what happened.
     */
    public boolean delete(String name) throws SQLException {
        return inTransaction(c -> {
            if (deleteWhereUser(c, "sync_users", name) == 0) {
                return false;
            }
            for (String table : USER_TABLES) {
                deleteWhereUser(c, table, name);
            }
            return true;
        });
    }

    /** One unit of work in a transaction ({@link #inTransaction}). */
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} in a transaction of its own: committed when it returns, rolled back when it throws. */
    private <T> T inTransaction(Work<T> work) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
        }
    }

    /** Deletes the rows of {@code table} (a constant of this class, never input) that belong to {@code name}. */
    private static int deleteWhereUser(Connection c, String table, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE user_id = ?")) {
            ps.setString(1, name);
            return ps.executeUpdate();
        }
    }

    /**
     * Checks an account name.
     *
     * @throws IllegalArgumentException naming the bad name and the rule
     */
    public static void requireName(String name) {
        if (name == null || !USER_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a user name must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' "
                    + "and '-' but was '" + name + "'");
        }
    }

    private static final String SELECT =
            "SELECT user_id, is_admin, disabled, created_at_ms, password_hash IS NOT NULL FROM sync_users";

    private static Account account(ResultSet rs) throws SQLException {
        return new Account(rs.getString(1), rs.getBoolean(2), rs.getBoolean(3), rs.getLong(4), rs.getBoolean(5));
    }
}
