-- The same index as db/migration/V4__outbox_by_record.sql (portable SQL).
-- The push reads "the oldest unconfirmed edit of each record" with a NOT EXISTS over earlier edits
-- of the same record. Without this index that subquery scanned every pending edit of the key for
-- each one, so reading a batch was quadratic in the outbox size (10,000 pending edits: minutes;
-- found by the sync benchmark, docs/benchmarks.md).
CREATE INDEX outbox_by_record ON outbox (user_id, scope, record_id, seq);
