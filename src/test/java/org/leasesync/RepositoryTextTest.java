package org.leasesync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Comments and documents state what is true and why, not how the code got there: no numbers of
 * tracker issues, no names of the passes or branches a change went through, no chaos seeds of
 * particular runs, and no pointers to files outside the repository (a reader of a clone has
 * neither those files nor the tracker). The story of a change belongs in its commit message.
 *
 * <p>Reads every text file of {@code src}, {@code docs}, {@code jlink} and {@code scale}, plus
 * {@code README.md}, {@code pom.xml} and {@code .ci/run}, from the working directory Maven runs
 * the tests in (the repository root). The schema migrations under {@code src/main/resources/db/}
 * are left out: Flyway checksums every line of an applied migration, comments included, so editing
 * one would make every existing database refuse to open.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RepositoryTextTest {

    /** What a comment or document may not say, each with what it is, for the failure message. */
    private static final List<Rule> RULES = List.of(
            new Rule("a tracker issue number", "\\b[Ii]ssues?\\s+#?[0-9]+"),
            new Rule("a file outside the repository", "\\b(design|style)\\.md\\b|\\.\\./shared|/wor[k]/"),
            new Rule("the seed of a particular chaos run", "\\bseed\\s+[0-9]{6,}"),
            new Rule("a pass of earlier work", "\\b(first|second|third|fourth|fifth|sixth) pass\\b"),
            new Rule("a branch of earlier work", "\\b(branch(es)?\\s+`?i[0-9]{2}[a-z]\\b|integ[0-9]\\b)"),
            new Rule("a numbered kind of a tracker issue", "\\b[Kk]ind [0-9]+\\b"));

    /** Applied migrations are immutable: Flyway refuses a database whose migration checksums changed. */
    private static final Path MIGRATIONS = Path.of("src/main/resources/db");

    private static final Set<String> TEXT_SUFFIXES = Set.of(
            ".java",
            ".md",
            ".sql",
            ".properties",
            ".xml",
            ".sh",
            ".c",
            ".css",
            ".fxml",
            ".conf",
            ".cfg",
            ".service",
            ".desktop",
            ".txt",
            ".yml",
            ".yaml",
            ".json",
            ".py",
            ".jfc",
            ".toml");

    /** Compiled once: the rules are matched against every line of every file. */
    record Rule(String what, Pattern pattern) {
        Rule(String what, String regex) {
            this(what, Pattern.compile(regex));
        }
    }

    @Test
    void noCommentOrDocumentTellsHistoryOrPointsOutsideTheRepository() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path file : textFiles()) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                for (Rule rule : RULES) {
                    Matcher m = rule.pattern().matcher(lines.get(i));
                    if (m.find()) {
                        found.add(file + ":" + (i + 1) + ": " + rule.what() + " ('" + m.group() + "'): "
                                + lines.get(i).strip());
                    }
                }
            }
        }
        assertThat(found)
                .as("lines that tell history or point outside the repository; say the invariant"
                        + " or the reason instead, and put the story in the commit message")
                .isEmpty();
    }

    @Test
    void theRulesCatchWhatTheyAreFor() {
        assertThat(matches("// the fence of issue " + 14 + " §1")).isTrue();
        assertThat(matches("see " + "design" + ".md invariant 3")).isTrue();
        assertThat(matches("seen in the chaos run, seed " + 1_234_567)).isTrue();
        assertThat(matches("the fourth" + " pass of the lease benchmark")).isTrue();
        assertThat(matches("measured on branch `i" + "14h`")).isTrue();
        assertThat(matches("the epoch is the fencing token; a stale one is refused"))
                .isFalse();
        assertThat(matches("java -jar target/leasesync.jar chaos --rounds 1000 --seed 42"))
                .isFalse();
        assertThat(matches("docs/protocol.md §4.2, HTTP 409, &#160;")).isFalse();
    }

    private static boolean matches(String line) {
        return RULES.stream().anyMatch(r -> r.pattern().matcher(line).find());
    }

    private static List<Path> textFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String root : List.of("src", "docs", "jlink", "scale")) {
            try (Stream<Path> walk = Files.walk(Path.of(root))) {
                walk.filter(Files::isRegularFile)
                        .filter(RepositoryTextTest::isText)
                        .filter(f -> !f.startsWith(MIGRATIONS))
                        .sorted()
                        .forEach(files::add);
            }
        }
        for (String single : List.of("README.md", "pom.xml", ".ci/run")) {
            files.add(Path.of(single));
        }
        assertThat(files)
                .as("the repository's text files, read from the repository root")
                .hasSizeGreaterThan(100);
        return files;
    }

    private static boolean isText(Path file) {
        String name = file.getFileName().toString();
        return name.indexOf('.') < 0 || TEXT_SUFFIXES.stream().anyMatch(name::endsWith);
    }
}
