-- Payloads as large objects (the protocol allows bodies up to 5 MiB) and record ids up to 255
-- characters, as the protocol allows; a value the server accepts must never wedge a local pull.
ALTER TABLE local_record ALTER COLUMN payload SET DATA TYPE CLOB;
ALTER TABLE local_record ALTER COLUMN record_id SET DATA TYPE VARCHAR(255);
ALTER TABLE outbox ALTER COLUMN payload SET DATA TYPE CLOB;
ALTER TABLE outbox ALTER COLUMN server_payload SET DATA TYPE CLOB;
ALTER TABLE outbox ALTER COLUMN record_id SET DATA TYPE VARCHAR(255);
