-- The same table as db/migration/V8__run_origin.sql: where a run came from (issue 13), the program
-- that ran it and the sync server it talked to; one row per run that recorded it.
CREATE TABLE run_origin (
    run_id   VARCHAR(64)   NOT NULL PRIMARY KEY,
    program  VARCHAR(100)  NOT NULL,
    server   VARCHAR(2000) NOT NULL
);
