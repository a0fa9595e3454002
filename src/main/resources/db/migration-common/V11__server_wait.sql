-- The sync server's Retry-After per task key (a 429 or 503 asked the client to wait): until_ms is
-- the wall-clock time before which no trigger of any process on this database contacts the server
-- about the key; asked_at_ms when it was recorded, which bounds the wait when the clock is set back.
-- A row outlives the process, so a restarted window or the next `leasesync sync` still honours it.
-- A table of its own: the wait belongs to the key, not to any one run.
-- Every migration of this schema exists for H2 and for PostgreSQL, identical in meaning.
CREATE TABLE server_wait (
    task_key    VARCHAR(300)  NOT NULL PRIMARY KEY,
    until_ms    BIGINT        NOT NULL,
    asked_at_ms BIGINT        NOT NULL,
    reason      VARCHAR(2000) NOT NULL
);
