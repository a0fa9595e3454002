package org.leasesync.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.OtherAccount;
import org.leasesync.testing.ProcessTest;

/**
 * Owner-only directories and files on the real file system: made 0700 / 0600, existing ones
 * tightened (owner bits kept), another account's refused and left as they are, links not followed.
 * (That new ones are owner-only under any umask is shown by a real process under umask 022:
 * {@code cli.OwnerOnlyDataDirProcessTest}.)
 */
@ProcessTest
class OwnerOnlyFilesTest {

    @TempDir
    Path tmp;

    @BeforeEach
    void asRoot() throws Exception {
        OtherAccount.require();
    }

    @Test
    void createsTheDirectoryAndItsMissingParentsOwnerOnlyAndLeavesExistingParentsAlone() throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path dir = tmp.resolve("a/b/c");

        assertThat(OwnerOnlyFiles.directory(dir)).isEqualTo(dir.toAbsolutePath().normalize());

        assertThat(perms(tmp.resolve("a"))).isEqualTo("rwx------");
        assertThat(perms(tmp.resolve("a/b"))).isEqualTo("rwx------");
        assertThat(perms(dir)).isEqualTo("rwx------");
        assertThat(perms(tmp))
                .as("an existing parent is not this directory's to change")
                .isEqualTo("rwxr-xr-x");
    }

    @Test
    void tightensAnExistingDirectoryKeepingTheOwnersOwnBits() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("made-with-mkdir"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxr-x"));
        Path inside = Files.writeString(dir.resolve("notes.txt"), "mine");
        Files.setPosixFilePermissions(inside, PosixFilePermissions.fromString("rw-r--r--"));

        OwnerOnlyFiles.directory(dir);

        assertThat(perms(dir)).isEqualTo("rwx------");
        assertThat(perms(inside)).as("directory() tightens the directory only").isEqualTo("rw-r--r--");

        Files.setPosixFilePermissions(inside, PosixFilePermissions.fromString("r--r--r--"));
        OwnerOnlyFiles.tightenTree(dir);
        assertThat(perms(inside))
                .as("a read-only file stays read-only for its owner")
                .isEqualTo("r--------");
    }

    @Test
    void refusesAndLeavesAloneADirectoryOfAnotherAccount() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("theirs"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        OtherAccount.chown(dir);

        assertThatThrownBy(() -> OwnerOnlyFiles.directory(dir)).isInstanceOfSatisfying(NotYoursException.class, e -> {
            assertThat(e.path()).isEqualTo(dir);
            assertThat(e.owner()).isEqualTo(OtherAccount.NAME);
            assertThat(e.getMessage()).isEqualTo(dir + " belongs to nobody, not to you (root)");
        });
        assertThat(perms(dir)).isEqualTo("rwxr-xr-x");
    }

    @Test
    void refusesADirectoryThatIsAFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain"), "x");
        assertThatThrownBy(() -> OwnerOnlyFiles.directory(file.resolve("below")))
                .isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file + " is a file");
    }

    @Test
    void writesAtomicallyOwnerOnlyWhateverTheOldFileWas() throws Exception {
        Path file = Files.writeString(tmp.resolve("settings.json"), "old");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));

        OwnerOnlyFiles.writeString(file, "new");

        assertThat(file).hasContent("new");
        assertThat(perms(file)).isEqualTo("rw-------");
        assertThat(list(tmp)).as("no temporary file left").containsExactly("settings.json");

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        OwnerOnlyFiles.writeSynced(file, "synced".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(file).hasContent("synced");
        assertThat(perms(file)).isEqualTo("rw-------");
        assertThat(list(tmp)).containsExactly("settings.json");
    }

    @Test
    void aFailedWriteLeavesTheOldFileAndNoTemporaryFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("kept"), "old");
        Path dirInTheWay = Files.createDirectory(tmp.resolve("a-directory"));
        Files.writeString(dirInTheWay.resolve("child"), "x");

        assertThatThrownBy(() -> OwnerOnlyFiles.writeString(dirInTheWay, "new"))
                .isInstanceOf(java.io.IOException.class);

        assertThat(file).hasContent("old");
        assertThat(list(tmp)).containsExactlyInAnyOrder("kept", "a-directory");
    }

    @Test
    void fileCreatesOwnerOnlyOrTightensTheExistingOne() throws Exception {
        Path file = tmp.resolve("leasesync.log");
        assertThat(OwnerOnlyFiles.file(file)).isTrue();
        assertThat(perms(file)).isEqualTo("rw-------");

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(OwnerOnlyFiles.file(file)).isFalse();
        assertThat(perms(file)).isEqualTo("rw-------");
    }

    /**
     * H2's lock file is created and deleted by several processes at once while a database changes
     * hands: a file that another process deletes while it is being created or tightened is created
     * again, never an error naming the vanished file.
     */
    @Test
    void aFileDeletedByAnotherProcessMeanwhileIsCreatedAgain() throws Exception {
        Path file = tmp.resolve("leasesync.lock.db");
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger deletions = new AtomicInteger();
        Thread deleter = new Thread(() -> {
            while (!done.get()) {
                try {
                    if (Files.deleteIfExists(file)) {
                        deletions.incrementAndGet();
                        // a process deletes the file once, as H2 does, not over and over
                        LockSupport.parkNanos(50_000);
                    }
                } catch (Exception e) {
                    // a concurrent create or delete: go on deleting
                }
            }
        });
        deleter.start();
        List<Throwable> failures = new ArrayList<>();
        try {
            for (int i = 0; i < 20_000; i++) {
                try {
                    OwnerOnlyFiles.file(file);
                } catch (Exception e) {
                    failures.add(e);
                }
            }
        } finally {
            done.set(true);
            deleter.join();
        }
        assertThat(deletions.get()).as("the race was run").isPositive();
        assertThat(failures).isEmpty();
    }

    @Test
    void aTreeIsTightenedWithoutFollowingLinksAndRefusedAtAnotherAccountsEntry() throws Exception {
        Path outside = Files.writeString(tmp.resolve("outside.txt"), "not the tree's");
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-r--r--"));
        Path root = Files.createDirectories(tmp.resolve("root/sub"));
        Path mine = Files.writeString(root.resolve("mine"), "x");
        Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rw-r--r--"));
        Files.createSymbolicLink(root.resolve("link"), outside);

        OwnerOnlyFiles.tightenTree(tmp.resolve("root"));

        assertThat(OtherAccount.notOwnerOnly(tmp.resolve("root"))).isEmpty();
        assertThat(perms(outside)).as("a link's target is not the tree's").isEqualTo("rw-r--r--");

        Path theirs = Files.writeString(root.resolve("planted"), "x");
        OtherAccount.chown(theirs);
        assertThatThrownBy(() -> OwnerOnlyFiles.tightenTree(tmp.resolve("root")))
                .isInstanceOfSatisfying(
                        NotYoursException.class, e -> assertThat(e.path()).isEqualTo(theirs));
    }

    @Test
    void tighteningWhatIsGoneIsNoError() throws Exception {
        OwnerOnlyFiles.tighten(tmp.resolve("never-there"));
        assertThat(OwnerOnlyFiles.isOwnerOnly(tmp)).isTrue();
    }

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<String> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }
}
