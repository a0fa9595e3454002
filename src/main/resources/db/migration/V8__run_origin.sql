-- Where a run came from (issue 13): the program that ran it ('leasesync window', 'leasesync sync', ...)
-- and the sync server it talked to, so the window can say that a failure it shows came from another
-- process against another server. NULL for runs recorded before this version.
-- (V5-V7 are other changes of the same release.)
ALTER TABLE run ADD COLUMN origin_program VARCHAR(100);
ALTER TABLE run ADD COLUMN origin_server VARCHAR(2000);
