#!/usr/bin/env bash
# Proves the backup and restore commands of docs/deploy.md on PostgreSQL 15 and records what a
# restore does to clients today:
#   1. pg_dump after a first sync; device 1 pushes an edit and pulls again (its cursor is now past the
#      backup); the server is stopped, the dump restored into a fresh database, the server started;
#      then: the database id, what device 1's sync says, whether its edit is on the server, what a
#      new device sees, whether device 1 gets a later edit of another device, and what happens when
#      device 1 edits its lost record again.
#   2. pg_basebackup + WAL archiving: point-in-time recovery to a moment between two edits into a
#      second cluster, and a server started on it.
# Usage (root; mvn -B -ntp -q package -DskipTests first): bash scale/restore-check.sh   (KEEP=1 keeps
# the work dir). Runs in a network namespace of its own, on 127.0.0.1 only; stops everything it
# started. About 2 minutes.
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
device_cursor() {  # the pull cursor the device keeps (its newest pull checkpoint)
  client "$1" status --json | jq -r '[.. | objects | select(has("pullCursor")) | .pullCursor | select(. != null)] | last // "?"'
}

start_postgres
start_instance 1 --seed demo; wait_instance 1; read_tokens

# ---------------------------------------------------------------- 1. pg_dump and pg_restore
log "=== 1. pg_dump / pg_restore ==="
log "device 1 first sync: $(sync_dev d1)"
log "server: $(server_state); device 1 cursor $(device_cursor d1), $(local_summary d1)"
runuser -u postgres -- "$PGBIN/pg_dump" -h "$W/pg" -p "$PGPORT" -Fc -f "$W/pg/leasesync.dump" leasesync
chmod 600 "$W/pg/leasesync.dump"
log "pg_dump -Fc: $(du -h "$W/pg/leasesync.dump" | cut -f1) ($(runuser -u postgres -- "$PGBIN/pg_restore" -l "$W/pg/leasesync.dump" | grep -c 'TABLE DATA') tables)"
edit_dev d1 course-lost "written after the backup"
log "device 1 pushes course-lost: $(sync_dev d1)"
log "device 1 syncs again: $(sync_dev d1)"
log "server: $(server_state); course-lost on the server: $(server_record course-lost); device 1 cursor $(device_cursor d1)"

stop_instance 1
runuser -u postgres -- "$PGBIN/dropdb" -h "$W/pg" -p "$PGPORT" leasesync
runuser -u postgres -- "$PGBIN/createdb" -h "$W/pg" -p "$PGPORT" --owner leasesync leasesync
runuser -u postgres -- "$PGBIN/pg_restore" -h "$W/pg" -p "$PGPORT" -d leasesync --no-owner --role=leasesync \
    --exit-on-error "$W/pg/leasesync.dump"
log "restored the dump into a new database leasesync (dropdb, createdb --owner leasesync, pg_restore --no-owner --role=leasesync)"
start_instance 1 --seed demo; wait_instance 1; read_tokens
log "server after the restore: $(server_state); course-lost on the server: $(server_record course-lost)"
log "a pull from the beginning now gives nextCursor $(curl -s "$SERVER/v1/users/alice/scopes/course_sync/changes?limit=1000" -H "Authorization: Bearer $ALICE" | jq -r .nextCursor)"
log "device 1 syncs: $(sync_dev d1)"
log "device 1 afterwards: cursor $(device_cursor d1), $(local_summary d1); its course-lost: $(local_record d1 course-lost)"
log "device 2 (new) syncs: $(sync_dev d2); $(local_summary d2); its course-lost: $(local_record d2 course-lost)"
edit_dev d2 course-after-restore "written by device 2 after the restore"
log "device 2 pushes course-after-restore: $(sync_dev d2); on the server: $(server_record course-after-restore)"
log "device 1 syncs: $(sync_dev d1); its course-after-restore: $(local_record d1 course-after-restore)"
edit_dev d2 course-later "written by device 2 later"
log "device 2 pushes course-later: $(sync_dev d2); on the server: $(server_record course-later)"
log "device 1 syncs: $(sync_dev d1); its course-later: $(local_record d1 course-later); its course-after-restore: $(local_record d1 course-after-restore); cursor $(device_cursor d1)"
edit_dev d1 course-lost "edited again on device 1"
log "device 1 edits course-lost again and syncs: $(sync_dev d1 | tr '\n' ' '); $(local_summary d1); on the server: $(server_record course-lost)"
log "device 1's conflict entry: $(client d1 records --user alice --scope course_sync --json | jq -c '.outbox[0] | {recordId, state, baseVersion, serverVersion, serverPayload}')"
log "server: $(server_state)"
stop_instance 1

# ---------------------------------------------------------------- 1b. the workaround: a new database id
log "=== 1b. after a restore, give the database a new id (instances stopped) ==="
psql_admin -d leasesync -c "UPDATE server_identity SET database_id = substr(md5(random()::text), 1, 12)" >/dev/null
start_instance 1 --seed demo; wait_instance 1; read_tokens
log "server: $(server_state)"
log "device 1 syncs: $(sync_dev d1 | tr '\n' ' ')"
log "device 1 afterwards: cursor $(device_cursor d1), $(local_summary d1); course-after-restore: $(local_record d1 course-after-restore); course-lost: $(local_record d1 course-lost)"
log "device 2 syncs: $(sync_dev d2); $(local_summary d2)"
stop_instance 1

# ---------------------------------------------------------------- 2. base backup + WAL archive (PITR)
log "=== 2. pg_basebackup + WAL archiving, point-in-time recovery ==="
start_instance 1 --seed demo; wait_instance 1; read_tokens
log "device 3 first sync: $(sync_dev d3)"
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
log "server on the recovered cluster: $(server_state); course-pitr-1: $(server_record course-pitr-1); course-pitr-2: $(server_record course-pitr-2)"
log "device 3 syncs: $(sync_dev d3); its course-pitr-2: $(local_record d3 course-pitr-2); cursor $(device_cursor d3)"
log "OK"
