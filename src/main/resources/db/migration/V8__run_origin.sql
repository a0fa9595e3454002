-- Where a run came from (issue 13): the program that ran it ('leasesync window', 'leasesync sync', ...)
-- and the sync server it talked to, so the window can say that a failure it shows came from another
-- process against another server. One row per run that recorded it (none for runs from before this
-- version), written in the run's first guarded transaction. A table of its own rather than columns
-- of run: adding columns makes H2 rewrite the whole run history of an existing database.
-- (V5-V7 are other changes of the same release.)
CREATE TABLE run_origin (
    run_id   VARCHAR(64)   NOT NULL PRIMARY KEY,
    program  VARCHAR(100)  NOT NULL,
    server   VARCHAR(2000) NOT NULL
);
