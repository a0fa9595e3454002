-- Issue 14 §2/§6: the newest runs of a key by epoch (lastRun, runningRun, lastSucceeded,
-- highestEpoch, the history and the retention's cut-off) are read through an index instead of
-- sorting every run of the key, so a trigger's decision stays flat as the history grows. The indexes
-- are descending and the queries order by (task_key, [status,] epoch DESC, started_at_ms DESC): H2
-- walks an index in order only when the ORDER BY matches it from its first column (EXPLAIN shows
-- "index sorted"; before, every run of the key was read and sorted). Old runs are pruned after each run ends
-- (RunRetention, docs/architecture.md "Run history retention").
-- Every client migration exists twice, identical in meaning: db/migration (H2) and
-- db/migration-postgresql.
CREATE INDEX run_by_key_epoch ON run (task_key, epoch DESC, started_at_ms DESC);
CREATE INDEX run_by_key_status_epoch ON run (task_key, status, epoch DESC, started_at_ms DESC);
-- The V1 indexes these replace (their prefixes serve every query that used them), so a run's
-- insert updates one index tree more than before (not three): a commit on the file serializes every B-tree page
-- it changed (docs/benchmarks.md, issue 14 profile).
DROP INDEX run_by_key;
DROP INDEX run_by_status;
-- The retention's oldest-first walk (RunHistoryPruner): ascending.
CREATE INDEX run_by_key_epoch_asc ON run (task_key, epoch);
CREATE INDEX trigger_skip_by_key_time ON trigger_skip (task_key, at_ms);
