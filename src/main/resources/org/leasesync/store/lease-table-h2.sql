-- The lease table that org.leasesync.store.JdbcLeaseStore and JdbcGuard need, for H2.
-- Copy this statement into your own schema's migrations (e.g. the sync server's) to run the task
-- registry's leases over your own pool: new DataSourceDatabase(dataSource, SqlDialect.H2, "...").
-- The store's SQL names the table and its columns as below; change neither.
--
-- task_key  a lease key's written form: a task key 'userId|scope' or a job key 'job:name'
--           (the column keeps its name from when only task keys existed)
-- owner_id  the holder ('machine/pid/processStart/nonce'); NULL = free (released)
-- epoch     the fencing token: +1 per grant, never decreases (a release keeps it)
-- heartbeat +1 per grant, renewal and release; an observer that sees it unchanged for a whole TTL
--           on its own monotonic clock may take the key over
-- *_ms      epoch milliseconds by the holder's clock; display only, never compared across processes
--
-- Open H2 with a bounded lock wait (the client's URLs say LOCK_TIMEOUT=10000), so that a grant
-- queued behind a stopped process's open transaction answers "held" (H2: HYT00) instead of
-- waiting for ever.

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
