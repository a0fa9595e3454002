package org.leasesync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.fx.App;

/**
 * The .deb's configuration (jlink/) stays in step with the code. What the built package holds was
 * checked with dpkg-deb -I/-c (jlink/README.md); these guard the inputs on every build.
 */
class PackagingFilesTest {

    static String read(String path) throws Exception {
        return Files.readString(Path.of(path));
    }

    @Test
    void theDesktopEntrysStartupWmClassIsTheWindowsWmClass() throws Exception {
        // JavaFX names the window's WM_CLASS after the Application class (checked with xprop under Xvfb:
        // "org.leasesync.desktop.fx.App", "org.leasesync.desktop.fx.App"); docks group the window with its menu entry
        // by it
        assertThat(read("jlink/resources/leasesync.desktop"))
                .containsPattern("(?m)^StartupWMClass=" + Pattern.quote(App.class.getName()) + "$");
    }

    @Test
    void theMenuEntrySpeaksToUsersInBothLanguages() throws Exception {
        String entry = read("jlink/resources/leasesync.desktop");
        // jpackage's own Comment is its --description, written for developers: the entry has its own
        assertThat(entry).doesNotContain("APPLICATION_DESCRIPTION");
        for (String key : new String[] {"Name", "GenericName", "Comment", "Keywords"}) {
            assertThat(entry).containsPattern("(?m)^" + key + "=\\S.*$");
            Matcher zh = Pattern.compile("(?m)^" + Pattern.quote(key + "[zh_CN]") + "=(.+)$")
                    .matcher(entry);
            assertThat(zh.find()).as(key + "[zh_CN]").isTrue();
            if (!key.equals("Name")) { // the product's name stays leasesync in every language
                assertThat(zh.group(1)).as(key + "[zh_CN] in Chinese").containsPattern("\\p{IsHan}");
            }
        }
    }

    @Test
    void theMaintainerFieldIsNameAndAddress() throws Exception {
        // jpackage writes "Maintainer: <--vendor> <<--linux-deb-maintainer>>": the option takes the address only
        String config = read("jlink/config.sh");
        Matcher vendor = Pattern.compile("(?m)^VENDOR=\"([^\"]+)\"$").matcher(config);
        Matcher email = Pattern.compile("(?m)^MAINTAINER_EMAIL=(\\S+)$").matcher(config);
        assertThat(vendor.find()).isTrue();
        assertThat(email.find()).isTrue();
        assertThat(vendor.group(1)).doesNotContain("<", ">", "@");
        assertThat(email.group(1)).matches("[a-z0-9._-]+@[a-z0-9.-]+");
        assertThat(read("jlink/build.sh"))
                .contains("--vendor \"$VENDOR\"", "--linux-deb-maintainer \"$MAINTAINER_EMAIL\"");
    }

    @Test
    void theLauncherRunsWithoutThePerfDataSampler() throws Exception {
        // its 50 ms sampling woke the JVM 20 times a second in the tray (docs/benchmarks.md)
        Matcher options = Pattern.compile("(?ms)^JAVA_OPTIONS=\\((.*?)\\)$").matcher(read("jlink/config.sh"));
        assertThat(options.find()).isTrue();
        assertThat(options.group(1).split("\\s+")).contains("-XX:-UsePerfData");
    }

    @Test
    void theInstallPutsLeasesyncOnThePathAndTheRemovalTakesItAway() throws Exception {
        assertThat(read("jlink/resources/postinst")).contains("ln -sf /opt/leasesync/bin/leasesync /usr/bin/leasesync");
        assertThat(read("jlink/resources/prerm"))
                .contains("[ \"$(readlink /usr/bin/leasesync 2>/dev/null)\" = /opt/leasesync/bin/leasesync ]")
                .contains("rm -f /usr/bin/leasesync");
    }
}
