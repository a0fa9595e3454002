package org.leasesync.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.store.h2.UnfinishedCreation;
import org.leasesync.store.h2.UpgradeCopy;
import org.leasesync.store.h2.UpgradeGuard;

/**
 * Opening a data directory's H2 file so that no upgrade ever leaves it unusable, whatever is killed when:
 * <ol>
 *   <li>With {@link UpgradeGuard} shared: connect (the open timeout covers this only), read the schema
 *       version. Current: done — the usual start, one query. Newer than this program: refused
 *       ({@link NewerSchemaException}), nothing changed.</li>
 *   <li>Otherwise (or when an {@link UpgradeCopy} is present, or the file is new), with the guard
 *       exclusive: put back the copy of an upgrade that did not finish; connect and read the version
 *       again (another process may have upgraded meanwhile: then done); a schema with data is closed,
 *       found open in no other process, copied, connected again and migrated, however long that takes;
 *       then the copy is discarded and the guard released.</li>
 * </ol>
 * A migration therefore never runs twice at once, never runs while another process is connected, and
 * never ends half-applied for good: a kill before the copy is discarded is undone at the next start.
 *
 * <p>Stateless and thread-safe; blocks while waiting for the guard, connecting and migrating.
 */
final class FileUpgrade {

    private static final int LATEST = SqlDialect.LATEST_CLIENT_MIGRATION;
    /** How long a just-closed file may take to be let go by H2. */
    private static final Duration RELEASE_WAIT = Duration.ofSeconds(5);

    private FileUpgrade() {}

    // "try": the upgrade guards are held for their blocks, only their close is used
    @SuppressWarnings("try")
    static Database open(Path dir, Duration openTimeout, OwnerId self, OwnerLiveness liveness, UpgradeNotice notice) {
        Path file = DataDirectory.databaseFile(dir);
        UpgradeCopy copy = UpgradeCopy.of(file);
        String what = "this data directory (" + dir + ")";
        if (Files.exists(file) && !copy.present()) {
            try (UpgradeGuard shared = UpgradeGuard.shared(dir, openTimeout, liveness)) {
                Database db = Database.connectFile(dir, openTimeout, true);
                SchemaUpgrade.Found found = SchemaUpgrade.read(db.dataSource(), LATEST);
                if (found.current()) {
                    return db;
                }
                db.close();
                SchemaUpgrade.refuseNewer(found, LATEST, what);
            }
        }
        try (UpgradeGuard guard = UpgradeGuard.exclusive(dir, openTimeout, liveness, self)) {
            if (copy.present()) {
                requireUnopened(file, "put back the copy taken before an upgrade that did not finish");
                copy.restore();
            }
            boolean creating = !Files.exists(file);
            if (creating) {
                UnfinishedCreation.begin(dir, self);
            }
            Database db = Database.connectFile(dir, openTimeout, true);
            SchemaUpgrade.Found found = SchemaUpgrade.read(db.dataSource(), LATEST);
            if (found.current()) {
                UnfinishedCreation.finish(dir);
                return db;
            }
            if (found.highest() > LATEST) {
                db.close();
                SchemaUpgrade.refuseNewer(found, LATEST, what);
            }
            if (!found.empty()) {
                db.close();
                requireUnopened(file, "upgrade it from schema " + found.highest() + " to " + LATEST);
                notice.upgrading(found.highest(), LATEST);
                copy.take();
                db = Database.connectFile(dir, openTimeout, false); // just closed by this process, intact
            }
            try {
                SchemaUpgrade.migrate(
                        db.dataSource(), SqlDialect.H2.clientMigrations(), found, LATEST, "the local database " + file);
            } catch (RuntimeException e) {
                db.close();
                throw new StoreException(
                        DatabaseFailures.openFailed(SqlDialect.H2, file.toString(), e)
                                + (copy.present()
                                        ? " The copy taken before the upgrade (" + copy.path() + ") is kept and is "
                                                + "put back at the next start."
                                        : ""),
                        e);
            }
            copy.discard();
            UnfinishedCreation.finish(dir); // the schema is migrated: from here on the file may hold the user's data
            return db;
        }
    }

    private static void requireUnopened(Path file, String toDo) {
        UpgradeGuard.requireUnopened(file, RELEASE_WAIT, toDo);
    }
}
