-- The same change as db/migration/V5__outbox_rejected.sql (portable SQL): an outbox entry the sync
-- server refuses for good is set aside as state 'rejected' with its reason.
ALTER TABLE outbox ADD COLUMN rejected_reason VARCHAR(2000);
ALTER TABLE outbox ADD COLUMN rejected_at_ms BIGINT;
