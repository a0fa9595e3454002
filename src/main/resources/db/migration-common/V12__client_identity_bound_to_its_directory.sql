-- A client id belongs to one data directory on one machine (docs/architecture.md "A device's
-- identity"). A copy of the directory carries this row but not the place it was bound to, so the
-- copy notices that it is one and becomes a device of its own (a new client id, its outbox kept):
-- two devices never share a fencing-token sequence at the sync server.
--   machine_id          the machine's id (/etc/machine-id) when the row was bound
--   dir_key             the data directory's file key (device + inode on Linux); a rename keeps it
--   dir_path            the directory's real path when bound: display only, updated on a move
--   previous_client_id  the id this directory's copy was made from, after a copy was noticed
-- NULL binding columns (rows from before this version) are bound at the next open, id unchanged.
-- Every client migration exists twice, identical in meaning: db/migration (H2) and
-- db/migration-postgresql.
ALTER TABLE client_identity ADD COLUMN machine_id VARCHAR(200);
ALTER TABLE client_identity ADD COLUMN dir_key VARCHAR(400);
ALTER TABLE client_identity ADD COLUMN dir_path VARCHAR(4000);
ALTER TABLE client_identity ADD COLUMN previous_client_id VARCHAR(64);
