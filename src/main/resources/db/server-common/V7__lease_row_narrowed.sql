-- Issue 14 §1: the lease row loses its two columns that nothing decided on. granted_at_ms was
-- written by every grant and read by nothing; expires_at_ms was always renewed_at_ms + ttl_ms for a
-- held key (and renewed_at_ms for a released one), so the store computes it when it reads a row.
-- A grant now sets five values instead of seven and a release three instead of four, and H2 executes
-- the fenced lease's statements for less (docs/benchmarks.md, "Lease acquire + release with a fair
-- harness"). Existing rows keep their key, owner, epoch, heartbeat, TTL and renewal time unchanged,
-- so every fence and every observation of a heartbeat stays valid across the upgrade.
-- Every migration of this schema exists for H2 and for PostgreSQL, identical in meaning.
ALTER TABLE lease DROP COLUMN granted_at_ms;
ALTER TABLE lease DROP COLUMN expires_at_ms;
