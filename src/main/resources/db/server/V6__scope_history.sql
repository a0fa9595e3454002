-- Restore detection (docs/protocol.md §4.2). Every migration exists twice, identical in meaning:
-- db/server (H2) and db/server-postgresql.
--
-- One row per write that assigned sequence numbers in a user+scope (a push that applied at least
-- one change, the demo seeding), keyed by the last seq it assigned, with a random stamp of that
-- write. Pull cursors and push positions carry the stamp of the write that assigned their seq. A
-- copy of the database restored from an older backup (or a replica that lost its last commits)
-- has not reached those seqs, or gives them to other writes with other stamps, so a cursor or
-- position from before the restore is recognised and refused (invalid_cursor, reason went_back).
-- Rows are never deleted: a cursor names any seq ever assigned.
CREATE TABLE scope_history (
    user_id  VARCHAR(64) NOT NULL,
    scope    VARCHAR(32) NOT NULL,
    seq      BIGINT      NOT NULL,
    stamp    VARCHAR(16) NOT NULL,
    PRIMARY KEY (user_id, scope, seq)
);

-- Everything written before this migration counts as one write per user+scope, with a stamp of
-- its own (a backup from before the upgrade, restored and migrated again, gets other stamps).
INSERT INTO scope_history (user_id, scope, seq, stamp)
SELECT user_id, scope, last_seq, LOWER(RAWTOHEX(SECURE_RAND(8))) FROM scope_state WHERE last_seq > 0;
