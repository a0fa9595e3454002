package org.leasesync.testing;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A class-data-sharing (AppCDS) archive of the test class path's jars, made once per build and mapped
 * by every child JVM ({@link JavaProcess#jvm()}).
 *
 * <p>Why: a child spends most of its start-up loading, parsing and verifying the same few thousand
 * classes of picocli, Jackson, H2, Flyway, OkHttp and Logback; mapped from an archive, a child sync
 * took about a third less CPU here. The process tests start hundreds of children on two cores, so that
 * is minutes of a full build.
 *
 * <p>How: one child runs {@link ChildArchiveTraining} with {@code -XX:DumpLoadedClassList}, then
 * {@code java -Xshare:dump} archives the listed classes found in the jars (a JVM archives classes
 * from jars only, never from directories, so the class path puts the jars first and the build's
 * class directories after them: the archive's class path must be a prefix of a child's). The file is
 * named by a hash of the JDK and the jars, lives in {@code target/child-cds}, and is made under a file
 * lock, so test JVMs running at once make it once and a changed dependency makes a new one.
 *
 * <p>An archive that cannot be made or does not match leaves the children as they were: a JVM whose
 * archive does not fit its class path runs without it ({@code -Xshare:auto}), and its CDS log lines
 * are off, so the children's output does not change. Thread-safe; {@link #path()} blocks while the
 * archive is made (about 15 s, once).
 */
final class ChildArchive {

    private static Optional<Path> archive;

    private ChildArchive() {}

    /** The jars of {@code classPath} first, then its other entries, each group in its own order. */
    static String jarsFirst(String classPath) {
        List<String> jars = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                (e.endsWith(".jar") ? jars : rest).add(e);
            }
        }
        jars.addAll(rest);
        return String.join(File.pathSeparator, jars);
    }

    /** The archive for {@code classPath} (made on the first call), or empty when none could be made. */
    static synchronized Optional<Path> path(String classPath) {
        if (archive == null) {
            archive = make(classPath);
        }
        return archive;
    }

    private static Optional<Path> make(String classPath) {
        List<String> jars = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator)) {
            if (e.endsWith(".jar")) {
                jars.add(e);
            }
        }
        if (jars.isEmpty()) {
            return Optional.empty();
        }
        Path dir = Path.of("target", "child-cds").toAbsolutePath();
        String key = hash(System.getProperty("java.home") + "\n" + System.getProperty("java.vm.version") + "\n"
                + String.join("\n", jars));
        Path jsa = dir.resolve(key + ".jsa");
        try {
            Files.createDirectories(dir);
            try (FileChannel lockFile = FileChannel.open(
                            dir.resolve(key + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock = lockFile.lock()) {
                if (Files.isRegularFile(jsa)) {
                    return Optional.of(jsa);
                }
                Path list = dir.resolve(key + ".classes");
                Path log = dir.resolve(key + ".log");
                List<String> train = new ArrayList<>(List.of(
                        JavaProcess.java(),
                        "-XX:DumpLoadedClassList=" + list,
                        "-cp",
                        classPath,
                        ChildArchiveTraining.class.getName()));
                if (run(train, log) != 0) {
                    System.err.println(
                            "child JVM archive: the training run failed (" + log + "); children run without it");
                    return Optional.empty();
                }
                Path tmp = dir.resolve(key + ".jsa.tmp");
                Files.deleteIfExists(tmp);
                List<String> dump = List.of(
                        JavaProcess.java(),
                        "-Xshare:dump",
                        "-XX:SharedClassListFile=" + list,
                        "-XX:SharedArchiveFile=" + tmp,
                        "-cp",
                        String.join(File.pathSeparator, jars));
                if (run(dump, log) != 0 || !Files.isRegularFile(tmp)) {
                    System.err.println("child JVM archive: the dump failed (" + log + "); children run without it");
                    return Optional.empty();
                }
                Files.move(tmp, jsa, StandardCopyOption.ATOMIC_MOVE);
                return Optional.of(jsa);
            }
        } catch (IOException e) {
            System.err.println("child JVM archive: " + e + "; children run without it");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static int run(List<String> cmd, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
