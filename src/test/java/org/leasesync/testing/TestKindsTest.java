package org.leasesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.annotation.Annotation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The fast loop ({@code -Pfast}) runs every untagged class and promises to need nothing but Java and
 * Maven: a class that starts a desktop session, PostgreSQL or a child process must carry its kind
 * (docs/testing.md), or the fast loop would start Xvfb, PostgreSQL or child JVMs, fail on a machine
 * without them and take minutes. A class starts one if it, or test code it uses (a fixture such as
 * {@code CliProcess}), refers to the class that does; followed through test code only, since the
 * product's own process starters (the folder opener, the keyring's tool) are reached from
 * everywhere and started by no unit test.
 */
class TestKindsTest {

    private static final JavaClasses TESTS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
            .importPackages("org.leasesync");

    /** Every kind: each is a tag the fast loop leaves out. */
    private static final List<Class<? extends Annotation>> ANY_KIND =
            List.of(ProcessTest.class, DesktopTest.class, PostgresTest.class, FxTest.class, SlowTest.class);

    /**
     * What a class must carry when its code, or test code it calls, calls a method of the key's class
     * (by full name) whose name is in the list after the colon ("*": any method or constructor).
     */
    private static final Map<String, List<Class<? extends Annotation>>> STARTERS = Map.of(
            DesktopSession.class.getName() + ":start",
            List.of(DesktopTest.class),
            KeyringSession.class.getName() + ":start",
            List.of(DesktopTest.class),
            Postgres.class.getName() + ":*",
            ANY_KIND,
            JavaProcess.class.getName() + ":start,jvm,launcher",
            ANY_KIND,
            ProcessBuilder.class.getName() + ":start",
            ANY_KIND,
            "org.leasesync.chaos.ChaosHarness:run",
            ANY_KIND,
            "org.leasesync.chaos.ClusterHarness:run",
            ANY_KIND,
            "org.leasesync.chaos.ServerProcess:start",
            ANY_KIND);

    /**
     * Calls the rule follows although they never start anything for the class at hand: the
     * contracts' {@code SchemaDb.of(dialect)} starts PostgreSQL only for the PostgreSQL subclass, which
     * is tagged; the H2 subclasses get H2.
     */
    private static final List<String> DISPATCHED_BY_VALUE = List.of("SchemaDb.of");

    @Test
    void everyClassThatStartsADesktopPostgresOrAProcessCarriesItsKind() {
        List<String> missing = new ArrayList<>();
        for (JavaClass c : TESTS) {
            if (!c.getSimpleName().endsWith("Test")
                    || c.isNestedClass()
                    || c.isEquivalentTo(TestKindsTest.class)
                    || c.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.ABSTRACT)
                    || c.isAnnotation()) {
                continue;
            }
            for (Map.Entry<String, List<String>> reached : reachedStarters(c).entrySet()) {
                List<Class<? extends Annotation>> kinds = STARTERS.get(reached.getKey());
                if (reached.getValue().stream().anyMatch(DISPATCHED_BY_VALUE::contains)) {
                    continue;
                }
                if (kinds.stream().noneMatch(k -> carries(c, k))) {
                    missing.add(c.getName() + " reaches " + reached.getKey() + " (through " + reached.getValue()
                            + ") but carries none of "
                            + kinds.stream().map(k -> "@" + k.getSimpleName()).toList());
                }
            }
        }
        assertThat(missing).as("test classes whose kind is missing").isEmpty();
    }

    @Test
    void theRuleSeesAFixtureThatStartsAProcessForItsTest() {
        JavaClass accounts = TESTS.get("org.leasesync.cli.AccountsCliTest");
        assertThat(reachedStarters(accounts)).containsKey(JavaProcess.class.getName() + ":start,jvm,launcher");
        assertThat(reachedStarters(TESTS.get("org.leasesync.desktop.fx.WindowGeometryProcessTest")))
                .containsKey(DesktopSession.class.getName() + ":start");
        assertThat(reachedStarters(TESTS.get("org.leasesync.lease.TaskRegistryTest")))
                .isEmpty();
    }

    /**
     * Each starter the class reaches, with the test classes the calls went through: from every method
     * of the class and its superclasses, following calls into test code (a call of a method that the
     * class overrides goes to its override; a method's lambdas count as its own code).
     */
    private static Map<String, List<String>> reachedStarters(JavaClass start) {
        List<JavaClass> hierarchy = new ArrayList<>();
        for (Optional<JavaClass> t = Optional.of(start);
                t.isPresent();
                t = t.get().getRawSuperclass()) {
            hierarchy.add(t.get());
        }
        Map<String, List<String>> found = new HashMap<>();
        Deque<JavaCodeUnit> todo = new ArrayDeque<>();
        Map<JavaCodeUnit, List<String>> pathTo = new HashMap<>();
        for (JavaClass c : hierarchy) {
            for (JavaClass member : withNested(c)) {
                for (JavaCodeUnit u : member.getCodeUnits()) {
                    pathTo.put(u, List.of());
                    todo.add(u);
                }
            }
        }
        while (!todo.isEmpty()) {
            JavaCodeUnit u = todo.poll();
            List<String> path = pathTo.get(u);
            List<JavaAccess<?>> calls = new ArrayList<>(u.getCallsFromSelf());
            calls.addAll(u.getMethodReferencesFromSelf());
            calls.addAll(u.getConstructorReferencesFromSelf());
            for (JavaAccess<?> call : calls) {
                JavaClass owner = call.getTargetOwner();
                String method = call.getName();
                for (String starter : STARTERS.keySet()) {
                    String[] parts = starter.split(":");
                    if (owner.getName().equals(parts[0])
                            && (parts[1].equals("*")
                                    || List.of(parts[1].split(",")).contains(method))
                            && (!found.containsKey(starter)
                                    || !Collections.disjoint(found.get(starter), DISPATCHED_BY_VALUE))) {
                        found.put(starter, path);
                    }
                }
                if (!TESTS.contain(owner.getName())) {
                    continue;
                }
                JavaClass target = overrideIn(hierarchy, owner, method);
                List<String> next = new ArrayList<>(path);
                next.add(topLevel(target).getSimpleName() + "." + method);
                for (JavaCodeUnit callee : target.getCodeUnits()) {
                    // the called method, and the lambdas of its class (their bodies are methods of their own)
                    if ((callee.getName().equals(method) || callee.getName().startsWith("lambda$"))
                            && !pathTo.containsKey(callee)) {
                        pathTo.put(callee, next);
                        todo.add(callee);
                    }
                }
            }
        }
        return found;
    }

    /** The class of {@code hierarchy} below {@code owner} that declares {@code method} again, else the owner. */
    private static JavaClass overrideIn(List<JavaClass> hierarchy, JavaClass owner, String method) {
        for (JavaClass c : hierarchy) {
            if (c.getName().equals(owner.getName())) {
                return owner;
            }
            if (c.getCodeUnits().stream().anyMatch(u -> u.getName().equals(method))) {
                return c;
            }
        }
        return owner;
    }

    private static List<JavaClass> withNested(JavaClass top) {
        List<JavaClass> all = new ArrayList<>();
        for (JavaClass c : TESTS) {
            if (topLevel(c).getName().equals(top.getName())) {
                all.add(c);
            }
        }
        return all;
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass t = c;
        while (t.getEnclosingClass().isPresent()) {
            t = t.getEnclosingClass().get();
        }
        return t;
    }

    /** Annotated with {@code kind} on the class or a superclass (the kinds are {@code @Inherited}). */
    private static boolean carries(JavaClass c, Class<? extends Annotation> kind) {
        Optional<JavaClass> t = Optional.of(c);
        while (t.isPresent()) {
            if (t.get().isAnnotatedWith(kind)) {
                return true;
            }
            t = t.get().getRawSuperclass();
        }
        return false;
    }
}
