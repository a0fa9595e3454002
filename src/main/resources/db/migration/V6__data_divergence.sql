-- Issue 12, kind 3: data that must not silently diverge (docs/architecture.md, "When the server's
-- data goes back"; docs/protocol.md §4.2). Every migration exists twice: db/migration (H2) and
-- db/migration-postgresql.

-- The position the server answered to this device's latest applied push (protocol: "position"),
-- sent back with every pull (query parameter "pushed") until the next full download, so that a
-- server restored to before that push says so even when the pull cursor is older than the push.
CREATE TABLE push_position (
    user_id        VARCHAR(200)  NOT NULL,
    scope          VARCHAR(40)   NOT NULL,
    position       VARCHAR(400)  NOT NULL,
    updated_at_ms  BIGINT        NOT NULL,
    PRIMARY KEY (user_id, scope)
);

-- A full download in progress after the server refused the cursor (reason: went_back,
-- other_database, purged, or '' when the server gave none). outbox_seq_before: the highest outbox
-- seq when it began (edits made later were made on the downloaded state). Deleted when the download
-- has finished and been compared with resync_previous.
CREATE TABLE resync (
    user_id            VARCHAR(200)  NOT NULL,
    scope              VARCHAR(40)   NOT NULL,
    reason             VARCHAR(40)   NOT NULL,
    started_at_ms      BIGINT        NOT NULL,
    outbox_seq_before  BIGINT        NOT NULL,
    PRIMARY KEY (user_id, scope)
);

-- The local records as they were when that download began: what the end of the download tells
-- apart (removed, changed, new; own_edit_base as in local_record: this device's own edits the server
-- no longer has) and checks pending edits against (a version the server now gives to other content
-- makes the edit based on it a conflict).
CREATE TABLE resync_previous (
    user_id    VARCHAR(200)  NOT NULL,
    scope      VARCHAR(40)   NOT NULL,
    record_id  VARCHAR(255)  NOT NULL,
    version    BIGINT        NOT NULL,
    deleted    BOOLEAN       NOT NULL,
    payload    CLOB          NOT NULL,
    own_edit_base  BIGINT,
    PRIMARY KEY (user_id, scope, record_id)
);

-- When a record's local version was produced by this device's own confirmed edit: the version that
-- edit was based on (NULL: the version came from a pull). An edit saved on the version the user saw
-- (edit --base-version, the Data tab) is not a conflict with the user's own previous edit.
ALTER TABLE local_record ADD COLUMN own_edit_base BIGINT;

-- One row per record ever edited here, locked (SELECT ... FOR UPDATE) by saving an edit of the
-- record and by confirming a push of it, so that the two never interleave: an edit saved while the
-- previous edit of the same record is being confirmed is based on the confirmed version.
CREATE TABLE record_lock (
    user_id    VARCHAR(200)  NOT NULL,
    scope      VARCHAR(40)   NOT NULL,
    record_id  VARCHAR(255)  NOT NULL,
    PRIMARY KEY (user_id, scope, record_id)
);
