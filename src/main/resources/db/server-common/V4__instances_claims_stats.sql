-- Several server instances on one database (docs/reference-server.md, "Several instances").
-- Every migration exists twice, identical in meaning: db/server (H2) and db/server-postgresql.

-- Idempotency keys whose first request is executing now, one row per user+key, written in a
-- transaction of its own when the request is accepted and deleted once its answer is ready (or
-- its connection dropped). A row is live while the instance that wrote it is (liveness: H2 —
-- only this process; PostgreSQL — the instance's session-level advisory lock); a stale row is
-- replaced by the next request with the key.
CREATE TABLE idempotency_claims (
    user_id       VARCHAR(64)  NOT NULL,
    idem_key      VARCHAR(255) NOT NULL,
    scope         VARCHAR(32)  NOT NULL,
    request_hash  VARCHAR(64)  NOT NULL,
    instance_id   VARCHAR(128) NOT NULL,
    claim_id      VARCHAR(36)  NOT NULL,
    claimed_at_ms BIGINT       NOT NULL,
    PRIMARY KEY (user_id, idem_key)
);

CREATE INDEX idempotency_claims_by_instance ON idempotency_claims (instance_id);

-- GET /v1/admin/stats, cluster-wide: request and push counters, one row per instance that ever
-- started (the figures are sums over all rows).
CREATE TABLE instance_counters (
    instance_id   VARCHAR(128) NOT NULL PRIMARY KEY,
    started_at_ms BIGINT       NOT NULL,
    requests      BIGINT       NOT NULL,
    pushes        BIGINT       NOT NULL
);

-- Per user+scope and Sync-Run-Id: from the arrival of the run's first request to the completion
-- of its last, epoch microseconds (runOverlaps counts overlapping pairs of one user+scope).
CREATE TABLE run_intervals (
    user_id  VARCHAR(64)  NOT NULL,
    scope    VARCHAR(32)  NOT NULL,
    run_id   VARCHAR(255) NOT NULL,
    start_us BIGINT       NOT NULL,
    end_us   BIGINT       NOT NULL,
    PRIMARY KEY (user_id, scope, run_id)
);

-- Where the statistics were last reset: applied_changes rows of an older generation and audit
-- rows up to audit_after_seq are not counted.
CREATE TABLE stats_state (
    id              INT    NOT NULL PRIMARY KEY,
    generation      BIGINT NOT NULL,
    audit_after_seq BIGINT NOT NULL
);

INSERT INTO stats_state (id, generation, audit_after_seq) VALUES (1, 0, 0);

ALTER TABLE applied_changes ADD COLUMN stats_generation BIGINT DEFAULT 0 NOT NULL;

CREATE INDEX applied_changes_by_generation ON applied_changes (stats_generation);
