-- Reference sync server schema on PostgreSQL (the PostgreSQL twin of db/server/V1; every migration
-- exists in both locations). Instants are BIGINT epoch milliseconds; JSON is stored as TEXT.

CREATE TABLE server_settings (
    setting_name  VARCHAR(64)   NOT NULL PRIMARY KEY,
    setting_value VARCHAR(1024) NOT NULL
);

CREATE TABLE sync_users (
    user_id       VARCHAR(64)  NOT NULL PRIMARY KEY,
    token         VARCHAR(128) NOT NULL,
    created_at_ms BIGINT       NOT NULL,
    CONSTRAINT sync_users_token_unique UNIQUE (token)
);

-- One row per user and scope; locked by every push to that user+scope, which serialises pushes
-- there and makes last_seq (the pull cursor) grow in commit order.
CREATE TABLE scope_state (
    user_id  VARCHAR(64) NOT NULL,
    scope    VARCHAR(32) NOT NULL,
    last_seq BIGINT      NOT NULL,
    PRIMARY KEY (user_id, scope)
);

CREATE TABLE sync_records (
    user_id        VARCHAR(64)  NOT NULL,
    scope          VARCHAR(32)  NOT NULL,
    record_id      VARCHAR(255) NOT NULL,
    record_version BIGINT       NOT NULL,
    deleted        BOOLEAN      NOT NULL,
    payload        TEXT,
    seq            BIGINT       NOT NULL,
    updated_at_ms  BIGINT       NOT NULL,
    PRIMARY KEY (user_id, scope, record_id)
);

CREATE INDEX sync_records_by_seq ON sync_records (user_id, scope, seq);

CREATE TABLE applied_changes (
    user_id        VARCHAR(64)  NOT NULL,
    scope          VARCHAR(32)  NOT NULL,
    change_id      VARCHAR(255) NOT NULL,
    record_id      VARCHAR(255) NOT NULL,
    record_version BIGINT       NOT NULL,
    applied_at_ms  BIGINT       NOT NULL,
    PRIMARY KEY (user_id, scope, change_id)
);

CREATE TABLE idempotency_keys (
    user_id         VARCHAR(64)  NOT NULL,
    idem_key        VARCHAR(255) NOT NULL,
    scope           VARCHAR(32)  NOT NULL,
    request_hash    VARCHAR(64)  NOT NULL,
    status_code     INTEGER      NOT NULL,
    response_body   TEXT         NOT NULL,
    completed_at_ms BIGINT       NOT NULL,
    PRIMARY KEY (user_id, idem_key)
);

CREATE INDEX idempotency_keys_by_completion ON idempotency_keys (completed_at_ms);

CREATE TABLE fencing_tokens (
    user_id       VARCHAR(64)  NOT NULL,
    scope         VARCHAR(32)  NOT NULL,
    client_id     VARCHAR(255) NOT NULL,
    highest_token BIGINT       NOT NULL,
    updated_at_ms BIGINT       NOT NULL,
    PRIMARY KEY (user_id, scope, client_id)
);
