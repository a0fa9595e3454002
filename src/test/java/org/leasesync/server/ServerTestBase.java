package org.leasesync.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh in-memory reference server with demo data, and an HTTP client for it, per test. */
abstract class ServerTestBase {

    protected ReferenceServer server;
    protected TestClient client;

    /** The configuration of the test's server; the defaults unless a test class says otherwise. */
    protected ServerConfig config() {
        return ServerConfig.defaults();
    }

    @BeforeEach
    void startServer() {
        server = ReferenceServer.start(config());
        client = new TestClient(server);
    }

    @AfterEach
    void stopServer() {
        server.close();
    }
}
