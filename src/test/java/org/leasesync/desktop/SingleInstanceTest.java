package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.LeasesyncException;

/**
 * One window per data directory, on real Unix-domain sockets and real file locks: the second claim
 * asks the first to show itself, a socket left by a window that did not close it does not stop the
 * next one, and a holder that does not answer is reported. Two real processes (and SIGKILL) are in
 * {@code SingleWindowProcessTest}.
 */
@Timeout(60)
class SingleInstanceTest {

    @TempDir
    Path tmp;

    SingleInstance first;

    @AfterEach
    void close() {
        if (first != null) {
            first.close();
        }
    }

    SingleInstance claimFirst(Path dir) {
        SingleInstance.Claim c = SingleInstance.claim(dir, Duration.ofSeconds(5));
        assertThat(c).isInstanceOf(SingleInstance.Claim.First.class);
        return ((SingleInstance.Claim.First) c).instance();
    }

    @Test
    void aSecondClaimAsksTheFirstToShowItsWindow() throws Exception {
        Path dir = tmp.resolve("data");
        first = claimFirst(dir);
        AtomicInteger shown = new AtomicInteger();
        first.onShow(shown::incrementAndGet);
        assertThat(Files.getPosixFilePermissions(dir.resolve(SingleInstance.SOCKET)))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(dir)).isEqualTo(PosixFilePermissions.fromString("rwx------"));

        for (int i = 1; i <= 3; i++) {
            assertThat(SingleInstance.claim(dir, Duration.ofSeconds(5))).isInstanceOf(SingleInstance.Claim.Shown.class);
            assertThat(shown.get()).isEqualTo(i);
        }
    }

    @Test
    void aRequestBeforeTheWindowIsReadyIsRunWhenItIs() {
        Path dir = tmp.resolve("data");
        first = claimFirst(dir);
        assertThat(SingleInstance.claim(dir, Duration.ofSeconds(5))).isInstanceOf(SingleInstance.Claim.Shown.class);
        AtomicInteger shown = new AtomicInteger();
        first.onShow(shown::incrementAndGet);
        assertThat(shown.get()).isEqualTo(1);
    }

    @Test
    void aSocketLeftBehindDoesNotStopTheNextWindow() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("data"));
        // a window that ended without removing its socket (SIGKILL): the file stays, nobody listens
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(dir.resolve(SingleInstance.SOCKET)));
        }
        Files.writeString(dir.resolve(SingleInstance.LOCK), "");
        assertThat(dir.resolve(SingleInstance.SOCKET)).exists();

        first = claimFirst(dir);
        AtomicInteger shown = new AtomicInteger();
        first.onShow(shown::incrementAndGet);
        assertThat(SingleInstance.claim(dir, Duration.ofSeconds(5))).isInstanceOf(SingleInstance.Claim.Shown.class);
        assertThat(shown.get()).isEqualTo(1);
    }

    @Test
    void closingRemovesTheSocketAndTheNextClaimIsFirst() {
        Path dir = tmp.resolve("data");
        claimFirst(dir).close();
        assertThat(dir.resolve(SingleInstance.SOCKET)).doesNotExist();
        first = claimFirst(dir);
    }

    @Test
    void aHolderThatDoesNotAnswerIsReportedWithTheDirectory() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("data"));
        try (FileChannel lock = FileChannel.open(
                        dir.resolve(SingleInstance.LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                var held = lock.lock();
                ServerSocketChannel mute = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            mute.bind(UnixDomainSocketAddress.of(dir.resolve(SingleInstance.SOCKET))); // accepts, never answers
            assertThatThrownBy(() -> SingleInstance.claim(dir, Duration.ofSeconds(1)))
                    .isInstanceOf(LeasesyncException.class)
                    .hasMessageContaining("another leasesync window holds the data directory " + dir.toAbsolutePath())
                    .hasMessageContaining("did not answer within 1 s");
        }
    }
}
