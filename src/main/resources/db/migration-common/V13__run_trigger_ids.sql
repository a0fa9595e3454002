-- One trigger is recorded once. Each trigger carries an id (TriggerRequest.triggerId); a process
-- that submits the same trigger again (its connection to the shared file broke after the commit,
-- or it joined a holder and asked again) records nothing the second time: merges insert only when
-- the id is absent, and the unique index settles a race between two inserts. Rows from before this
-- version have no id (NULL, which the unique index does not compare).
-- Every client migration exists twice, identical in meaning: db/migration (H2) and
-- db/migration-postgresql.
ALTER TABLE run_trigger ADD COLUMN trigger_id VARCHAR(64);
CREATE UNIQUE INDEX run_trigger_by_trigger_id ON run_trigger (trigger_id);
