-- The audit log of user requests (written only when the server runs with --audit), read by the
-- chaos checker through GET /v1/admin/audit (docs/protocol.md §8, docs/reference-server.md).
-- seq is assigned at insertion. A committed push and a fenced pull insert their row in their own
-- transaction after locking the user+scope row, so for those rows seq order is commit order per
-- user+scope. The three lists are comma-separated change ids ('' = none); a ',' or '%' inside an
-- id is written %2C / %25.
CREATE TABLE request_audit (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at_ms           BIGINT       NOT NULL,
    path_user       VARCHAR(64)  NOT NULL,
    auth_user       VARCHAR(64),                 -- NULL: no, unknown or the admin token
    scope           VARCHAR(255) NOT NULL,       -- the path segment (also when it is no scope)
    op              VARCHAR(16)  NOT NULL,       -- pull | push | push_status
    client_id       VARCHAR(255),
    fencing_token   BIGINT,
    idempotency_key VARCHAR(255),
    status          INTEGER      NOT NULL,
    code            VARCHAR(64),
    applied         TEXT         NOT NULL,
    duplicates      TEXT         NOT NULL,
    conflicts       TEXT         NOT NULL
);
