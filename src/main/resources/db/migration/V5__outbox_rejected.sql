-- An outbox entry the sync server refuses for good (a 4xx that retrying cannot fix: 413 too large,
-- 400 naming the entry, 422 validation; docs/reliability.md "Poison outbox entries") is set aside:
-- state 'rejected' with the reason, kept until the user discards it or sends it again. It no longer
-- blocks the entries behind it. Portable SQL (H2 and PostgreSQL).
ALTER TABLE outbox ADD COLUMN rejected_reason VARCHAR(2000);
ALTER TABLE outbox ADD COLUMN rejected_at_ms BIGINT;
