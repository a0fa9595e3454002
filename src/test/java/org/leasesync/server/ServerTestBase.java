package org.leasesync.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh in-memory reference server with demo data, and an HTTP client for it, per test. */
abstract class ServerTestBase {

    protected ReferenceServer server;
    protected TestClient client;

    @BeforeEach
    void startServer() {
        server = ReferenceServer.start(ServerConfig.defaults());
        client = new TestClient(server);
    }

    @AfterEach
    void stopServer() {
        server.close();
    }
}
