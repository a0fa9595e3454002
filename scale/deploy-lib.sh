# Shared by scale/lb-check.sh and scale/restore-check.sh (sourced, not run): a private network
# namespace, a PostgreSQL 15 cluster configured as docs/deploy.md says, `leasesync serve` instances
# as unprivileged users, and a cleanup that stops everything it started, by process id.
#
# Everything listens on 127.0.0.1 inside a network namespace of its own (`unshare --net`), so no port
# of the machine is taken and no rule leaves the namespace. Needs root, Debian's postgresql-15,
# iptables, curl, jq, java, and target/leasesync.jar (mvn -B -ntp -q package -DskipTests).

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JAR=${LEASESYNC_JAR:-$REPO/target/leasesync.jar}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PGPORT=55432
# JVM options of the instances; the default is those of the packaged launcher (jlink/config.sh);
# SERVER_JAVA_OPTS= (empty) runs them with the JVM's defaults
SERVER_JAVA_OPTS=${SERVER_JAVA_OPTS--Xms16m -Xmx256m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:+UseSerialGC -Xss512k}
# instance N runs as uid 60100+N, so that one instance's database traffic can be cut by its uid
UID_BASE=60100

# Re-runs the calling script inside a new network namespace (only `lo`, brought up here).
enter_netns() {
  if [ "${DEPLOY_CHECK_NETNS:-}" != 1 ]; then
    [ "$(id -u)" = 0 ] || { echo "$(basename "$0"): must run as root (network namespace, iptables, postgres user)" >&2; exit 2; }
    for tool in unshare ip iptables curl jq java setpriv "$PGBIN/postgres"; do
      command -v "$tool" >/dev/null 2>&1 || [ -x "$tool" ] || { echo "$(basename "$0"): $tool is missing" >&2; exit 2; }
    done
    [ -f "$JAR" ] || { echo "$(basename "$0"): $JAR is missing: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
    exec unshare --net --fork env DEPLOY_CHECK_NETNS=1 bash "$0" "$@"
  fi
  ip link set lo up
}

W=
PIDS=()        # every background process started here, stopped by cleanup (by pid)
log() { printf '%s %s\n' "$(date +%H:%M:%S.%3N)" "$*"; }
fail() { log "FAILED: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }

cleanup() {
  local rc=$?
  set +e
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ -n "$W" ] && [ -f "$W/pg/data/postmaster.pid" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$W/pg/data" -m fast -w stop >/dev/null 2>&1
  fi
  if [ -n "$W" ] && [ -f "$W/pg/restored/postmaster.pid" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$W/pg/restored" -m fast -w stop >/dev/null 2>&1
  fi
  if [ -n "$W" ]; then
    if [ "${KEEP:-0}" = 1 ]; then log "kept $W"; else rm -rf "$W"; fi
  fi
  exit $rc
}

make_workdir() {
  W=$(mktemp -d /tmp/leasesync-deploy-check.XXXXXX)
  chmod 711 "$W"   # postgres and the instance users must traverse it
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

# A cluster configured as docs/deploy.md says: scram-sha-256 for the leasesync role from 127.0.0.1
# only, listen_addresses, keepalives. The superuser connects through the socket in $W/pg (peer).
start_postgres() {
  mkdir -p "$W/pg"
  chown postgres: "$W/pg"
  runuser -u postgres -- "$PGBIN/initdb" -D "$W/pg/data" --auth-local=peer --auth-host=reject \
      -E UTF8 --locale=C.UTF-8 >"$W/pg/initdb.log" 2>&1 || fail "initdb: $(tail -3 "$W/pg/initdb.log")"
  cat >>"$W/pg/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$W/pg'
max_connections = 100
password_encryption = scram-sha-256
tcp_keepalives_idle = 60
tcp_keepalives_interval = 10
tcp_keepalives_count = 6
wal_level = replica
archive_mode = on
archive_command = 'test ! -f $W/pg/wal-archive/%f && cp %p $W/pg/wal-archive/%f'
EOF
  # the same line docs/deploy.md gives, with the instances' address 127.0.0.1
  { echo "host    leasesync       leasesync       127.0.0.1/32            scram-sha-256"
    echo "local   replication     postgres                                peer"
    cat "$W/pg/data/pg_hba.conf"; } >"$W/pg/hba.new"
  mv "$W/pg/hba.new" "$W/pg/data/pg_hba.conf"
  chown postgres: "$W/pg/data/pg_hba.conf"
  mkdir -p "$W/pg/wal-archive"; chown postgres: "$W/pg/wal-archive"
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$W/pg/data" -l "$W/pg/server.log" -w -t 60 start >/dev/null \
      || fail "postgres did not start: $(tail -5 "$W/pg/server.log")"
  DB_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  psql_admin -c "CREATE ROLE leasesync LOGIN PASSWORD '$DB_PASSWORD'" >/dev/null
  runuser -u postgres -- "$PGBIN/createdb" -h "$W/pg" -p "$PGPORT" --owner leasesync leasesync
  JDBC_URL="jdbc:postgresql://127.0.0.1:$PGPORT/leasesync"
  log "postgres 15 on 127.0.0.1:$PGPORT, database leasesync owned by role leasesync (scram-sha-256)"
}

psql_admin() { runuser -u postgres -- "$PGBIN/psql" -h "$W/pg" -p "$PGPORT" -X -q -v ON_ERROR_STOP=1 "$@"; }
psql_value() { psql_admin -At -d leasesync -c "$1"; }

# start_instance N [extra serve options...]: instance N on port 880N as uid 60100+N, with its own
# owner-only copy of the password file (what systemd's LoadCredential= gives a unit).
INSTANCE_PIDS=()
start_instance() {
  local n=$1; shift
  local uid=$((UID_BASE + n)) dir="$W/i$n"
  mkdir -p "$dir"
  printf '%s\n' "$DB_PASSWORD" >"$dir/db-password"
  chown "$uid:$uid" "$dir/db-password"; chmod 600 "$dir/db-password"
  : >"$dir/out"; echo "--- started $(date +%T.%3N)" >>"$dir/err"
  # shellcheck disable=SC2086
  # the command line and environment of scale/systemd/leasesync-server@.service, with %i = the port
  setpriv --reuid="$uid" --regid="$uid" --clear-groups \
      env LEASESYNC_DB_USER=leasesync LEASESYNC_DB_PASSWORD_FILE="$dir/db-password" \
      java $SERVER_JAVA_OPTS -jar "$JAR" serve --db "$JDBC_URL" --bind 127.0.0.1 --port "$((8800 + n))" \
      --db-pool-size 10 "$@" >>"$dir/out" 2>>"$dir/err" &
  INSTANCE_PIDS[$n]=$!
  PIDS+=($!)
}

# wait_instance N: until its /health answers 200 (at most 60 s)
wait_instance() {
  local n=$1
  for _ in $(seq 1 600); do
    [ "$(health_code "$n")" = 200 ] && return 0
    kill -0 "${INSTANCE_PIDS[$n]}" 2>/dev/null || fail "instance $n exited: $(cat "$W/i$n/err")"
    sleep 0.1
  done
  fail "instance $n did not become healthy: $(cat "$W/i$n/err")"
}

health_code() { curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$((8800 + $1))/health" || true; }
instance_id() { curl -s -m 5 "http://127.0.0.1:$((8800 + $1))/health" | jq -r '.instanceId // empty'; }

kill9_instance() { kill -KILL "${INSTANCE_PIDS[$1]}"; wait "${INSTANCE_PIDS[$1]}" 2>/dev/null || true; }

# the tokens (the same on every instance: they live in the database)
read_tokens() {
  for _ in $(seq 1 100); do grep -q '^token admin ' "$W/i1/out" && break; sleep 0.1; done
  ALICE=$(sed -n 's/^token alice //p' "$W/i1/out")
  BOB=$(sed -n 's/^token bob //p' "$W/i1/out")
  ADMIN=$(sed -n 's/^token admin //p' "$W/i1/out")
  [ -n "$ALICE" ] && [ -n "$ADMIN" ] || fail "no tokens from instance 1: $(cat "$W/i1/out")"
}

# Cut / restore instance N's connections to PostgreSQL (a network cut by its uid: new packets of its
# sockets to the database port are answered with a TCP reset, established ones included).
CUT_AT=0
cut_db() {
  CUT_AT=$(now_ms)
  iptables -A OUTPUT -o lo -p tcp --dport "$PGPORT" -m owner --uid-owner "$((UID_BASE + $1))" \
      -j REJECT --reject-with tcp-reset
}
uncut_db() {
  iptables -D OUTPUT -o lo -p tcp --dport "$PGPORT" -m owner --uid-owner "$((UID_BASE + $1))" \
      -j REJECT --reject-with tcp-reset
}

# client NAME ARGS...: the leasesync CLI with data dir $W/client-NAME
client() {
  local name=$1; shift
  java -jar "$JAR" "$@" --data-dir "$W/client-$name"
}
