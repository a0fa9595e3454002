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
-- renewed_at_ms  the last grant, renewal or release, in epoch milliseconds by the holder's clock;
--           display only, never compared across processes (the expiry shown is renewed_at_ms + ttl_ms)
--
-- Upgrading a table made from an earlier version of this file (8 columns): drop the two columns the
-- store no longer writes, as the client's V10 and the server's V7 migrations do:
--   ALTER TABLE lease DROP COLUMN granted_at_ms;
--   ALTER TABLE lease DROP COLUMN expires_at_ms;
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
    renewed_at_ms  BIGINT       NOT NULL
);
