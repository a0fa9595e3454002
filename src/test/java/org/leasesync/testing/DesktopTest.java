package org.leasesync.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * A test class that starts a real desktop session of its own ({@link DesktopSession}: Xvfb, a
 * window manager, a tray host, a session bus, a notification daemon) or a real GNOME Keyring
 * ({@link KeyringSession}).
 *
 * <p>Tagged {@code desktop}: the fast loop ({@code mvn -B -ntp test -Pfast}) leaves these out, the full
 * build ({@code mvn -B -ntp verify}) runs them (docs/testing.md). The class-level timeout of
 * 5 minutes applies to each test method; an explicit {@code @Timeout} on the class or a
 * method wins over it. Inherited, so a subclass (the same contract on another database) is tagged too.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag("desktop")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public @interface DesktopTest {}
