package org.leasesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Another account on this machine ({@code nobody}), for tests of what it can reach of a client's
 * files: the test runs as root (CI does), hands files to {@code nobody} and runs commands as it
 * with {@code runuser}. Missing pieces fail the test, naming them — these tests never skip.
 */
public final class OtherAccount {

    /** The account that plays "another user of this machine". */
    public static final String NAME = "nobody";

    private OtherAccount() {}

    /** Fails unless this JVM runs as root and {@code nobody} and {@code runuser} exist. */
    public static void require() throws IOException, InterruptedException {
        assertThat(uid())
                .as("this test acts as another account (chown, runuser): run it as root, as CI does")
                .isZero();
        assertThat(run(List.of("id", "-u", NAME)).code())
                .as("the account '" + NAME + "' must exist")
                .isZero();
        assertThat(Files.isExecutable(Path.of("/usr/sbin/runuser"))
                        || Files.isExecutable(Path.of("/sbin/runuser"))
                        || Files.isExecutable(Path.of("/usr/bin/runuser")))
                .as("runuser (util-linux) is needed to run a command as " + NAME)
                .isTrue();
    }

    /** This process's effective uid. */
    public static int uid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return Integer.parseInt(line.trim().split("\\s+")[2]);
            }
        }
        throw new IllegalStateException("no Uid: line in /proc/self/status");
    }

    /** Gives {@code path} (not followed) to {@code nobody}. */
    public static void chown(Path path) throws IOException {
        UserPrincipal nobody =
                path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(NAME);
        Files.setOwner(path, nobody);
    }

    /** What a command printed and how it ended. */
    public record Result(int code, String output) {}

    /** Runs {@code command} as {@code nobody} (stdout and stderr together), at most 120 s. */
    public static Result runAsNobody(List<String> command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("runuser", "-u", NAME, "--"));
        cmd.addAll(command);
        return run(cmd);
    }

    private static Result run(List<String> cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile("other-account", ".out");
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("still running after 120 s: " + cmd + "\n" + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /**
     * Every entry under {@code root} (and {@code root} itself) that is not owner-only — some group or
     * other permission bit — or not 0700 for a directory and 0600 for a file, as
     * {@code "0644 /path"}; symbolic links are not followed and not listed.
     */
    public static List<String> notOwnerOnly(Path root) throws IOException {
        Set<PosixFilePermission> dir = PosixFilePermissions.fromString("rwx------");
        Set<PosixFilePermission> file = PosixFilePermissions.fromString("rw-------");
        List<String> wrong = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                check(d, dir);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                if (!attrs.isSymbolicLink()) {
                    check(f, file);
                }
                return FileVisitResult.CONTINUE;
            }

            private void check(Path p, Set<PosixFilePermission> expected) throws IOException {
                Set<PosixFilePermission> perms = Files.readAttributes(
                                p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                        .permissions();
                if (!perms.equals(expected)) {
                    wrong.add(PosixFilePermissions.toString(perms) + " " + p);
                }
            }
        });
        return wrong;
    }
}
