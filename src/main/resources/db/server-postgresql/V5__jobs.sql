-- The server's own periodic jobs run as task-registry jobs (docs/reference-server.md, "Jobs";
-- docs/architecture.md, "The server as a registry user"). Every migration exists twice, identical in
-- meaning: db/server (H2) and db/server-postgresql (PostgreSQL here; the twin is db/server).

-- The registry's lease table, exactly as org/leasesync/store/lease-table-postgresql.sql (the statement
-- below is copied from it; JdbcLeaseStore and JdbcGuard name the table and its columns so). Job keys
-- 'job:NAME' are its rows; every write of a job is fenced by its row (JdbcGuard).
CREATE TABLE lease (
    task_key       VARCHAR(300) NOT NULL PRIMARY KEY,
    owner_id       VARCHAR(400),
    epoch          BIGINT       NOT NULL,
    heartbeat      BIGINT       NOT NULL,
    ttl_ms         BIGINT       NOT NULL,
    granted_at_ms  BIGINT       NOT NULL,
    renewed_at_ms  BIGINT       NOT NULL,
    expires_at_ms  BIGINT       NOT NULL
);

-- Per job: the last scheduled occurrence that completed (an occurrence is a slot: epoch millis
-- divided by the job's interval; NULL = never) and who took the job's lease last (written by every
-- instance that is granted it, under that lease).
CREATE TABLE job_state (
    job_name             VARCHAR(100) NOT NULL PRIMARY KEY,
    last_completed_slot  BIGINT,
    last_completed_at_ms BIGINT,
    holder_instance_id   VARCHAR(128),
    holder_epoch         BIGINT
);

-- One row per run of a job. run_trigger: schedule | manual | takeover | recovery; result: running |
-- ok | failed | interrupted. resumed_from: the run whose checkpoint this one resumed. processed: rows
-- the job deleted, counted across resumed runs. Times are epoch milliseconds of the instance's clock.
CREATE TABLE job_runs (
    run_id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_name       VARCHAR(100)  NOT NULL,
    slot           BIGINT,
    run_trigger    VARCHAR(16)   NOT NULL,
    instance_id    VARCHAR(128)  NOT NULL,
    owner_id       VARCHAR(400)  NOT NULL,
    epoch          BIGINT        NOT NULL,
    resumed_from   BIGINT,
    started_at_ms  BIGINT        NOT NULL,
    ended_at_ms    BIGINT,
    result         VARCHAR(16)   NOT NULL,
    processed      BIGINT        NOT NULL,
    detail         VARCHAR(1000)
);

CREATE INDEX job_runs_by_job ON job_runs (job_name, run_id);

-- The checkpoint of a job's unfinished run, written in the same transaction as the batch it
-- describes; deleted when the run completes. position_json is the job's own position (JSON).
CREATE TABLE job_checkpoints (
    job_name      VARCHAR(100)  NOT NULL PRIMARY KEY,
    run_id        BIGINT        NOT NULL,
    slot          BIGINT,
    position_json VARCHAR(2000) NOT NULL,
    processed     BIGINT        NOT NULL,
    epoch         BIGINT        NOT NULL,
    updated_at_ms BIGINT        NOT NULL
);

-- Per user+scope whose tombstones the purge-tombstones job deleted: the highest seq purged (a pull
-- cursor below it may have missed a deletion: invalid_cursor), the highest version purged (a record
-- created again later gets a higher one) and a generation counted up by every purge (carried in
-- the cursors issued since, docs/protocol.md §4).
CREATE TABLE tombstone_horizons (
    user_id       VARCHAR(64) NOT NULL,
    scope         VARCHAR(32) NOT NULL,
    horizon_seq   BIGINT      NOT NULL,
    version_floor BIGINT      NOT NULL,
    generation    BIGINT      NOT NULL,
    purged_at_ms  BIGINT      NOT NULL,
    PRIMARY KEY (user_id, scope)
);
