package org.leasesync.server.demo;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.leasesync.server.protocol.Json;
import org.leasesync.server.store.AccountStore;
import org.leasesync.server.store.DatabaseErrors;
import org.leasesync.server.store.Passwords;
import org.leasesync.server.store.RecordStore;
import org.leasesync.server.store.ScopeHistory;
import org.leasesync.server.store.ServerDatabase;

/**
 * Seeds the demo accounts: {@code alice} and {@code bob} with demo records, and the admin account
 * {@code admin}, each with a new random password. An account that already exists is left alone
 * (its password too), so seeding a file-backed database again changes nothing. Each account is
 * seeded in one transaction; when several instances start at once on an empty shared database, one
 * of them seeds each account and the others find a duplicate key and leave it. Not thread-safe;
 * called once at start.
 */
public final class DemoSeeder {

    /** The seeded users with demo data, in order. */
    public static final List<String> USERS = List.of("alice", "bob");
    /** The seeded admin account. */
    public static final String ADMIN = "admin";

    private final ServerDatabase db;
    private final AccountStore accounts;
    private final RecordStore records;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public DemoSeeder(ServerDatabase db, AccountStore accounts, RecordStore records, Clock clock) {
        this.db = db;
        this.accounts = accounts;
        this.records = records;
        this.clock = clock;
    }

    /**
     * Seeds what is missing, with accounts that have no password yet ({@link #givePasswords} gives
     * them one). Blocks on the database.
     *
     * @return the accounts this call created, in order (alice, bob, admin); empty when all existed
     */
    public List<String> seed() throws SQLException {
        List<String> created = new ArrayList<>();
        for (String user : Stream.concat(USERS.stream(), Stream.of(ADMIN)).toList()) {
            try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                try {
                    boolean made = false;
                    if (!AccountStore.exists(c, user)) {
                        accounts.insert(c, user, null, user.equals(ADMIN));
                        made = true;
                        Map<String, List<String>> data =
                                user.equals("alice") ? DemoData.ALICE : user.equals("bob") ? DemoData.BOB : Map.of();
                        for (Map.Entry<String, List<String>> scope : data.entrySet()) {
                            insert(c, user, scope.getKey(), scope.getValue());
                        }
                    }
                    c.commit();
                    if (made) {
                        created.add(user);
                    }
                } catch (SQLException e) {
                    DatabaseErrors.rollbackAfter(c, e);
                    // another instance on the same database seeded this account at the same moment
                    if (!DatabaseErrors.isUniqueViolation(e)) {
                        throw e;
                    }
                } catch (RuntimeException e) {
                    DatabaseErrors.rollbackAfter(c, e);
                    throw e;
                }
            }
        }
        return created;
    }

    /**
     * Gives each of {@code created} (accounts {@link #seed} made) a new random password, unless it
     * got one meanwhile. Separate from seeding because each hash takes a noticeable time (Argon2id)
     * and only {@code serve} needs the passwords: embedded servers and tests sign in through
     * {@code tokenFor}. Blocks on the database and on one hash per account.
     *
     * @return each account's password, in order: the only time it exists in clear
     * @throws InterruptedException if interrupted while hashing
     */
    public Map<String, String> givePasswords(List<String> created) throws SQLException, InterruptedException {
        Map<String, String> given = new LinkedHashMap<>();
        for (String user : created) {
            String password = newPassword();
            if (accounts.setPasswordIfNone(user, Passwords.hash(password))) {
                given.put(user, password);
            }
        }
        return given;
    }

    private String newPassword() {
        byte[] bytes = new byte[15];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private void insert(Connection c, String user, String scope, List<String> payloads) throws SQLException {
        long seq = records.lockScope(c, user, scope);
        long now = clock.millis();
        Function<Integer, String> idOf = i ->
                payloads.size() == 1 ? DemoData.ID_PREFIX.get(scope) : DemoData.ID_PREFIX.get(scope) + "-" + (i + 1);
        for (int i = 0; i < payloads.size(); i++) {
            JsonNode payload = Json.readTree(payloads.get(i));
            seq++;
            records.write(
                    c,
                    user,
                    scope,
                    new RecordStore.StoredRecord(idOf.apply(i), 1, false, Json.text(payload), seq, now),
                    false);
        }
        records.setLastSeq(c, user, scope, seq);
        if (!payloads.isEmpty()) {
            ScopeHistory.record(c, user, scope, seq, ScopeHistory.newStamp());
        }
    }
}
