package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ChoiceFormat;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Both bundles follow docs/glossary.md and each other: the same keys, the same placeholders (argument
 * indexes, their number/choice formats, choice limits), and the glossary's Chinese term wherever the
 * English text has a checked term, and none of its "not" translations anywhere. A choice counts as a
 * number (Chinese has no plural forms), but its limits must be the English text's own.
 */
@Timeout(30)
class GlossaryTest {

    record Term(String english, String chinese, boolean checked, List<String> not) {}

    static List<Term> glossary() throws IOException {
        List<Term> terms = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("docs/glossary.md"), StandardCharsets.UTF_8)) {
            if (!line.startsWith("| ") || line.startsWith("| English") || line.startsWith("|---")) {
                continue;
            }
            String[] c = Arrays.stream(line.split("(?<!\\\\)\\|", -1))
                    .map(String::trim)
                    .toArray(String[]::new);
            List<String> not = c[4].isEmpty()
                    ? List.of()
                    : Arrays.stream(c[4].split(",")).map(String::trim).toList();
            terms.add(new Term(c[1], c[2], c[3].equals("yes"), not));
        }
        assertThat(terms).as("glossary rows").hasSizeGreaterThan(20);
        return terms;
    }

    @Test
    void bothBundlesHaveTheSameKeys() throws IOException {
        Properties en = MessagesBundleTest.load("messages.properties");
        Properties zh = MessagesBundleTest.load("messages_zh_CN.properties");
        TreeSet<String> onlyEn = new TreeSet<>(en.stringPropertyNames());
        onlyEn.removeAll(zh.stringPropertyNames());
        TreeSet<String> onlyZh = new TreeSet<>(zh.stringPropertyNames());
        onlyZh.removeAll(en.stringPropertyNames());
        assertThat(onlyEn).as("keys missing in messages_zh_CN.properties").isEmpty();
        assertThat(onlyZh).as("keys missing in messages.properties").isEmpty();
    }

    @Test
    void everyTextHasTheSamePlaceholdersInBothLanguages() throws IOException {
        Properties en = MessagesBundleTest.load("messages.properties");
        Properties zh = MessagesBundleTest.load("messages_zh_CN.properties");
        TreeMap<String, String> differ = new TreeMap<>();
        for (String k : en.stringPropertyNames()) {
            String z = zh.getProperty(k);
            if (z == null) {
                continue; // reported by bothBundlesHaveTheSameKeys
            }
            String e = en.getProperty(k);
            if (!placeholders(e).equals(placeholders(z)) || !choiceLimitsFit(e, z)) {
                differ.put(k, placeholders(e) + " vs " + placeholders(z) + ": " + e + " | " + z);
            }
        }
        assertThat(differ)
                .as("texts whose placeholders differ (English vs Chinese)")
                .isEmpty();
    }

    @Test
    void theChineseBundleUsesTheGlossaryTerms() throws IOException {
        Properties en = MessagesBundleTest.load("messages.properties");
        Properties zh = MessagesBundleTest.load("messages_zh_CN.properties");
        List<String> wrong = new ArrayList<>();
        for (Term t : glossary()) {
            Pattern english = Pattern.compile("(?i)\\b" + Pattern.quote(t.english()) + "(s|es)?\\b");
            for (String k : new TreeSet<>(zh.stringPropertyNames())) {
                String z = zh.getProperty(k);
                for (String bad : t.not()) {
                    if (z.contains(bad)) {
                        wrong.add(k + ": '" + bad + "' where the glossary has '" + t.chinese() + "' (" + t.english()
                                + "): " + z);
                    }
                }
                String e = en.getProperty(k);
                if (t.checked() && e != null && english.matcher(e).find() && !z.contains(t.chinese())) {
                    wrong.add(k + ": '" + t.english() + "' is '" + t.chinese() + "' in the glossary: " + e + " | " + z);
                }
            }
        }
        assertThat(wrong)
                .as("Chinese texts that do not follow docs/glossary.md")
                .isEmpty();
    }

    @Test
    void placeholdersAreComparedByIndexAndFormat() {
        assertThat(placeholders("{0} · {1,number,integer}")).containsExactly("0", "1:number");
        assertThat(placeholders("'{'x'}' {0}")).containsExactly("0");
        assertThat(placeholders("{0,choice,0#none|1#one|1<{0,number,integer} many}"))
                .containsExactly("0:number");
        assertThat(placeholders("{0,choice,1#a change|1<{0,number,integer} changes} ({1})"))
                .isEqualTo(placeholders("{0,number,integer} 项更改（{1}）"));
        assertThat(placeholders("{0} · {1}")).isNotEqualTo(placeholders("{0,number,integer} · {1}"));
        assertThat(placeholders("{0} {1}")).isNotEqualTo(placeholders("{0}"));
        assertThat(choiceLimitsFit("{0,choice,0#a|1#b|1<c}", "{0,choice,0#a|1#b}"))
                .isTrue();
        assertThat(choiceLimitsFit("{0,choice,1#b|1<c}", "{0,choice,0#a|1#b}")).isFalse();
    }

    /** The argument indexes a pattern uses, each with its format type ("1:number"), nested ones included. */
    static TreeSet<String> placeholders(String pattern) {
        String unquoted = pattern.replace("''", "").replaceAll("'[^']*'", "");
        TreeSet<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("\\{\\s*(\\d+)\\s*(?:,\\s*(\\w+))?").matcher(unquoted);
        while (m.find()) {
            // a choice is numeric like a number: Chinese has no plural forms, so "1#1 record|1<{0} records"
            // may be one "{0,number,integer} 条记录"; but the same arguments, each numeric or not in both
            String type = m.group(2) == null ? "" : m.group(2).equals("choice") ? ":number" : ":" + m.group(2);
            out.add(m.group(1) + type);
        }
        return out;
    }

    /**
     * Whether each choice of the Chinese text has only limits the English one has: Chinese has no
     * plural, so it may merge "1#one|1<many" into one branch, but never answer another set of cases.
     */
    static boolean choiceLimitsFit(String en, String zh) {
        Object[] fe = new MessageFormat(en).getFormatsByArgumentIndex();
        Object[] fz = new MessageFormat(zh).getFormatsByArgumentIndex();
        for (int i = 0; i < Math.min(fe.length, fz.length); i++) {
            if (fe[i] instanceof ChoiceFormat ce && fz[i] instanceof ChoiceFormat cz) {
                double[] le = ce.getLimits();
                for (double l : cz.getLimits()) {
                    if (Arrays.stream(le).noneMatch(x -> x == l)) {
                        return false;
                    }
                }
                if (le[0] != cz.getLimits()[0]) {
                    return false;
                }
            }
        }
        return true;
    }
}
