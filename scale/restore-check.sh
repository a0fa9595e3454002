#!/usr/bin/env bash
# Proves the backup and restore commands of docs/deploy.md on PostgreSQL 15 and that clients notice a
# restore (docs/protocol.md §4.2) — each step is asserted, the script fails at the first that does not hold:
#   1. pg_dump after a first sync; device 1 pushes an edit and pulls again (its cursor is now past the
#      backup); device 4 pushes an edit without pulling again (its cursor is older than its push); the
#      server is stopped, the dump restored into a fresh database, the server started; then: the same
#      database id and a lower sequence; a new device 2 pushes a record, which gets the sequence number
#      device 1 has already seen; device 1 and device 4 each notice that the data went back, download
#      everything again (the lost edit gone, device 2's record there), say so, and go on normally.
#   2. pg_basebackup + WAL archiving: point-in-time recovery to a moment between two edits into a
#      second cluster, a server started on it, and the device that had pushed the second edit notices.
# Usage (root; mvn -B -ntp -q package -DskipTests first): bash scale/restore-check.sh   (KEEP=1 keeps
# the work dir). Runs in a network namespace of its own, on 127.0.0.1 only; stops everything it
# started. About 4 to 6 minutes.
source "$(dirname "$0")/deploy-lib.sh"
enter_netns "$@"
make_workdir
SERVER=http://127.0.0.1:8801

stop_instance() {
  kill -TERM "${INSTANCE_PIDS[$1]}"; wait "${INSTANCE_PIDS[$1]}" 2>/dev/null || true
}
sync_dev() {  # sync_dev DEVICE: one sync of alice|course_sync; prints "exit N: its line"
  local rc=0 out
  out=$(client "$1" sync --user alice --scope course_sync --server "$SERVER" --token "$ALICE" 2>&1) || rc=$?
  echo "exit $rc: $out"
}
edit_dev() {  # edit_dev DEVICE RECORD TITLE
  client "$1" edit --user alice --scope course_sync --id "$2" --payload "{\"title\":\"$3\",\"progress\":0.5}" >/dev/null
}
local_record() {  # local_record DEVICE RECORD -> "version V, title T" or "absent"
  client "$1" records --user alice --scope course_sync --json \
      | jq -r --arg id "$2" '([.records[] | select(.id == $id)] | if length == 0 then "absent"
            else (.[0] | "version \(.version), title \(.payload | fromjson | .title // "-")") end)'
}
local_summary() {  # local_summary DEVICE -> "N records, M outbox entries (states)"
  client "$1" records --user alice --scope course_sync --json \
      | jq -r '"\(.records | length) records, \(.outbox | length) outbox entries\(if (.outbox | length) > 0 then " (" + ([.outbox[] | "\(.recordId) \(.state)"] | join(", ")) + ")" else "" end)"'
}
server_record() {  # server_record RECORD -> "version V, seq S" or "absent"
  local r
  r=$(psql_value "SELECT 'version ' || record_version || ', seq ' || seq FROM sync_records WHERE user_id = 'alice' AND scope = 'course_sync' AND record_id = '$1'")
  echo "${r:-absent}"
}
server_state() {
  echo "database id $(psql_value "SELECT database_id FROM server_identity"), alice|course_sync last seq $(psql_value "SELECT last_seq FROM scope_state WHERE user_id = 'alice' AND scope = 'course_sync'")"
}
expect() {  # expect WHAT ACTUAL REGEX: logs ACTUAL, or fails when it does not match the extended regex
  local actual
  actual=$(printf '%s' "$2" | tr '\n' ' ')
  [[ "$actual" =~ $3 ]] || fail "$1: expected /$3/ but got: $actual"
  log "$1: $actual"
}
device_cursor() {  # the pull cursor the device keeps (its newest pull checkpoint)
  client "$1" status --json | jq -r '[.. | objects | select(has("pullCursor")) | .pullCursor | select(. != null)] | last // "?"'
}

start_postgres
start_instance 1 --seed demo; wait_instance 1; read_tokens

# ---------------------------------------------------------------- 1. pg_dump and pg_restore
log "=== 1. pg_dump / pg_restore ==="
expect "device 1 first sync" "$(sync_dev d1)" '^exit 0: alice\|course_sync synced'
expect "device 4 first sync" "$(sync_dev d4)" '^exit 0: '
log "server: $(server_state); device 1 cursor $(device_cursor d1), $(local_summary d1)"
dbid_before=$(psql_value "SELECT database_id FROM server_identity")
seq_before=$(psql_value "SELECT last_seq FROM scope_state WHERE user_id = 'alice' AND scope = 'course_sync'")
runuser -u postgres -- "$PGBIN/pg_dump" -h "$W/pg" -p "$PGPORT" -Fc -f "$W/pg/leasesync.dump" leasesync
chmod 600 "$W/pg/leasesync.dump"
log "pg_dump -Fc: $(du -h "$W/pg/leasesync.dump" | cut -f1) ($(runuser -u postgres -- "$PGBIN/pg_restore" -l "$W/pg/leasesync.dump" | grep -c 'TABLE DATA') tables)"
edit_dev d1 course-lost "written after the backup"
expect "device 1 pushes course-lost" "$(sync_dev d1)" '^exit 0: '
expect "device 1 syncs again" "$(sync_dev d1)" '^exit 0: '
edit_dev d4 course-lost-4 "written after the backup by device 4"
expect "device 4 pushes course-lost-4 (pulls first, so its cursor stays older)" "$(sync_dev d4)" '^exit 0: '
cursor_d1=$(device_cursor d1)
log "server: $(server_state); course-lost on the server: $(server_record course-lost); device 1 cursor $cursor_d1"

stop_instance 1
runuser -u postgres -- "$PGBIN/dropdb" -h "$W/pg" -p "$PGPORT" leasesync
runuser -u postgres -- "$PGBIN/createdb" -h "$W/pg" -p "$PGPORT" --owner leasesync leasesync
runuser -u postgres -- "$PGBIN/pg_restore" -h "$W/pg" -p "$PGPORT" -d leasesync --no-owner --role=leasesync \
    --exit-on-error "$W/pg/leasesync.dump"
log "restored the dump into a new database leasesync (dropdb, createdb --owner leasesync, pg_restore --no-owner --role=leasesync)"
start_instance 1 --seed demo; wait_instance 1; read_tokens
expect "database id after the restore" "$(psql_value "SELECT database_id FROM server_identity")" "^${dbid_before}\$"
expect "last sequence after the restore" "$(psql_value "SELECT last_seq FROM scope_state WHERE user_id = 'alice' AND scope = 'course_sync'")" "^${seq_before}\$"
expect "course-lost on the restored server" "$(server_record course-lost)" '^absent$'

expect "device 2 (new) syncs" "$(sync_dev d2)" '^exit 0: '
edit_dev d2 course-after-restore "written by device 2 after the restore"
expect "device 2 pushes course-after-restore" "$(sync_dev d2)" '^exit 0: '
expect "course-after-restore gets the sequence number device 1's cursor names" \
    "$(server_record course-after-restore)" ", seq $(cut -d: -f2 <<<"$cursor_d1")\$"

expect "device 1 syncs: it notices" "$(sync_dev d1)" \
    "^exit 0: alice\\|course_sync synced .* Downloaded everything again because the server's data went back to an earlier state \\(restored from a backup\\?\\): .*the server no longer has an edit this device had sent"
expect "device 1's course-after-restore" "$(local_record d1 course-after-restore)" '^version 1, title written by device 2'
expect "device 1's course-lost" "$(local_record d1 course-lost)" '^absent$'
expect "device 1's history" "$(client d1 history --key 'alice|course_sync' --limit 1)" 'note: Downloaded everything again because the server.s data went back'
expect "device 4 syncs: its push position tells it" "$(sync_dev d4)" \
    "^exit 0: .* Downloaded everything again because the server's data went back"
expect "device 4's course-lost-4" "$(local_record d4 course-lost-4)" '^absent$'

edit_dev d2 course-later "written by device 2 later"
expect "device 2 pushes course-later" "$(sync_dev d2)" '^exit 0: '
expect "device 1 syncs as usual" "$(sync_dev d1)" '^exit 0: alice\|course_sync synced \(run [^)]*\)$'
expect "device 1's course-later" "$(local_record d1 course-later)" '^version 1'
edit_dev d1 course-lost "edited again on device 1"
expect "device 1 makes its lost edit again" "$(sync_dev d1)" '^exit 0: '
expect "course-lost on the server" "$(server_record course-lost)" '^version 1, seq '
log "device 1: $(local_summary d1); device 2: $(local_summary d2 | tr '\n' ' ')"
log "server: $(server_state)"
stop_instance 1

# ---------------------------------------------------------------- 2. base backup + WAL archive (PITR)
log "=== 2. pg_basebackup + WAL archiving, point-in-time recovery ==="
start_instance 1 --seed demo; wait_instance 1; read_tokens
expect "device 3 first sync" "$(sync_dev d3)" '^exit 0: '
mkdir -p "$W/pg/base"; chown postgres: "$W/pg/base"
runuser -u postgres -- "$PGBIN/pg_basebackup" -h "$W/pg" -p "$PGPORT" -D "$W/pg/base/b1" -Ft -z -X fetch -c fast \
    -l "leasesync base backup"
log "pg_basebackup -Ft -z: $(du -sh "$W/pg/base/b1" | cut -f1) ($(ls "$W/pg/base/b1" | tr '\n' ' '))"
edit_dev d3 course-pitr-1 "before the recovery target"
log "device 3 pushes course-pitr-1: $(sync_dev d3)"
sleep 1; target=$(psql_value "SELECT now()"); sleep 1
edit_dev d3 course-pitr-2 "after the recovery target"
log "recovery target $target; device 3 pushes course-pitr-2: $(sync_dev d3); device 3 syncs again: $(sync_dev d3); cursor $(device_cursor d3)"
psql_admin -d leasesync -c "SELECT pg_switch_wal()" >/dev/null   # close the WAL segment so it is archived
for _ in $(seq 1 50); do
  [ "$(psql_value "SELECT last_archived_wal = pg_walfile_name(pg_current_wal_lsn()) OR last_archived_wal > pg_walfile_name(pg_current_wal_lsn()) FROM pg_stat_archiver")" = t ] && break
  sleep 0.2
done
log "archived WAL segments: $(ls "$W/pg/wal-archive" | grep -vc backup)"
stop_instance 1
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$W/pg/data" -m fast -w stop >/dev/null

R="$W/pg/restored"
install -d -o postgres -m 700 "$R"
runuser -u postgres -- tar -xzf "$W/pg/base/b1/base.tar.gz" -C "$R"
cat >>"$R/postgresql.conf" <<EOF
restore_command = 'cp $W/pg/wal-archive/%f %p'
recovery_target_time = '$target'
recovery_target_action = 'promote'
archive_mode = off
EOF
runuser -u postgres -- touch "$R/recovery.signal"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$R" -l "$W/pg/restored.log" -w -t 120 start >/dev/null \
    || fail "the restored cluster did not start: $(tail -5 "$W/pg/restored.log")"
for _ in $(seq 1 100); do [ "$(psql_value "SELECT pg_is_in_recovery()")" = f ] && break; sleep 0.2; done
log "restored cluster: $(grep -E 'recovery stopping|selected new timeline|archive recovery complete' "$W/pg/restored.log" | sed 's/^.*LOG: *//' | tr '\n' ';')"
start_instance 1 --seed demo; wait_instance 1
log "server on the recovered cluster: $(server_state)"
expect "course-pitr-1 on the recovered server" "$(server_record course-pitr-1)" '^version 1, seq '
expect "course-pitr-2 on the recovered server" "$(server_record course-pitr-2)" '^absent$'
expect "device 3 syncs: it notices" "$(sync_dev d3)" "^exit 0: .* Downloaded everything again because the server's data went back"
expect "device 3's course-pitr-2" "$(local_record d3 course-pitr-2)" '^absent$'
expect "device 3's course-pitr-1" "$(local_record d3 course-pitr-1)" '^version 1'
log "OK"
