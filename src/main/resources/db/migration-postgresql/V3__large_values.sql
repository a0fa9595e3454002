-- PostgreSQL equivalent of db/migration/V3__large_values.sql: payloads are TEXT already (V2), which
-- holds the protocol's bodies of up to 5 MiB; record ids up to 255 characters, as the protocol allows.
ALTER TABLE local_record ALTER COLUMN record_id SET DATA TYPE VARCHAR(255);
ALTER TABLE outbox ALTER COLUMN record_id SET DATA TYPE VARCHAR(255);
