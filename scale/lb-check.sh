#!/usr/bin/env bash
# Proves the load-balancer configurations of docs/deploy.md: three `leasesync serve` instances on one
# PostgreSQL 15, behind HAProxy and then behind nginx (the configs in scale/haproxy.cfg and
# scale/nginx.conf, with only the addresses filled in), and checks, for each balancer:
#   1. requests are spread over the three instances, and `leasesync sync` through the balancer works;
#   2. kill -9 of one instance: the balancer stops sending to it, clients see no error, syncs work;
#   3. the killed instance restarted: back in rotation;
#   4. one instance's database connections cut (iptables, by its uid): its /health answers 503, the
#      balancer takes it out, syncs keep working; connections restored: back in rotation;
#   5. a POST that reached an instance is never re-sent by the balancer (GETs are), proven from the
#      instance's own /metrics; a push without a 200 is asked about by its key, as a client would;
#   6. every instance gone: the balancer answers 503 with Retry-After, never 502 (for nginx also two
#      controls: 502 without the config's error_page, and 502 kept when an upstream did connect).
# Then it measures what an instance costs (connections, RSS, threads) idle and under load, how long
# PostgreSQL keeps a cut instance's sessions, the table sizes, and checks that each job occurrence
# ran once in the cluster. It prints the figures docs/deploy.md records.
#
# Usage (root; apt-get install haproxy nginx; mvn -B -ntp -q package -DskipTests first):
#   bash scale/lb-check.sh [haproxy|nginx|both]        (default both; KEEP=1 keeps the work dir)
# Runs in a network namespace of its own, on 127.0.0.1 only; every loop is bounded; everything it
# started is stopped on exit. About 9 minutes on 2 cores.
source "$(dirname "$0")/deploy-lib.sh"
WHICH=${1:-both}
case "$WHICH" in haproxy|nginx|both) ;; *) echo "usage: lb-check.sh [haproxy|nginx|both]" >&2; exit 2;; esac
for tool in haproxy nginx; do
  if [ "$WHICH" = both ] || [ "$WHICH" = "$tool" ]; then
    command -v "$tool" >/dev/null || { echo "lb-check.sh: $tool is missing (apt-get install -y $tool)" >&2; exit 2; }
  fi
done
enter_netns "$@"
make_workdir
LB=http://127.0.0.1:8800
# the same options on every instance (docs/deploy.md: LEASESYNC_SERVE_OPTIONS)
SERVE_OPTS="--seed demo --audit"
HAPROXY_ADMIN_PORT=8899

# ---------------------------------------------------------------- requests

# push ONE through the balancer (a new record, a new idempotency key); prints the status code
push_one() {
  local n=$1 key change
  key=$(cat /proc/sys/kernel/random/uuid); change=$(cat /proc/sys/kernel/random/uuid)
  local code
  code=$(curl -s -o /dev/null -m 10 -w '%{http_code}' -X POST "${2:-$LB}/v1/users/bob/scopes/message_sync/changes" \
      -H "Authorization: Bearer $BOB" -H "Idempotency-Key: $key" -H 'Content-Type: application/json' \
      --data "{\"changes\":[{\"changeId\":\"$change\",\"id\":\"lb-check-$n-$change\",\"baseVersion\":0,\"payload\":{\"n\":\"$n\"}}]}") \
      || code=000
  [ "$code" = 200 ] || echo "$key $code" >>"$W/pushes-not-200"
  echo "$code"
}
pull_one() {
  local code
  code=$(curl -s -o /dev/null -m 10 -w '%{http_code}' "${1:-$LB}/v1/users/bob/scopes/message_sync/changes?limit=1" \
      -H "Authorization: Bearer $BOB") || code=000
  echo "$code"
}

# background traffic through the balancer: alternating pull and push every 50 ms, for at most
# SECONDS (and 2000 requests), one "METHOD CODE" line each to FILE
TRAFFIC_PID=
traffic_start() {
  local seconds=$1 file=$2
  : >"$W/pushes-not-200"; [ ! -f "$W/haproxy.log" ] || : >"$W/haproxy.log"
  ( end=$(( $(date +%s) + seconds )); i=0
    while [ "$(date +%s)" -lt "$end" ] && [ $i -lt 2000 ]; do
      echo "GET $(pull_one)" >>"$file"; echo "POST $(push_one "t$i")" >>"$file"; i=$((i + 1)); sleep 0.05
    done ) &
  TRAFFIC_PID=$!
  PIDS+=($!)
}
traffic_stop() { kill "$TRAFFIC_PID" 2>/dev/null || true; wait "$TRAFFIC_PID" 2>/dev/null || true; }
traffic_summary() {  # "N requests, M not 2xx (codes)"; then what the server says about each push
  local file=$1 total bad key code state
  total=$(wc -l <"$file"); bad=$(grep -vc ' 2[0-9][0-9]$' "$file" || true)
  echo "$total requests ($(grep -c '^GET' "$file") pulls, $(grep -c '^POST' "$file") pushes), $bad not 2xx$( [ "$bad" -gt 0 ] && echo ": $(grep -v ' 2[0-9][0-9]$' "$file" | sort | uniq -c | tr '\n' ';')")"
  # a push without a 200 is what a client would query before retrying: ask, as it would
  [ -s "$W/pushes-not-200" ] || return 0
  while read -r key code; do
    state=$(curl -s -m 10 "$LB/v1/users/bob/scopes/message_sync/pushes/$key" -H "Authorization: Bearer $BOB" | jq -r '.state // "?"')
    echo "    push answered $code: GET .../pushes/{key} says \"$state\""
  done <"$W/pushes-not-200"
  if [ -f "$W/haproxy.log" ]; then
    grep -a '"' "$W/haproxy.log" | awk '$6 !~ /^2/ && $6 ~ /^[0-9]+$/' | sed 's/^/    haproxy: /' | tail -5
  fi
}

# which instance answers: N GET /health through the balancer, counted by instance id
spread() {
  local n=$1
  for _ in $(seq 1 "$n"); do curl -s -m 5 "$LB/health" | jq -r '.instanceId // "error"'; done | sort | uniq -c \
      | awk '{printf "%s%s x%s", (NR>1?", ":""), $2, $1} END {print ""}'
}

# a sync of alice|course_sync through the balancer, with one edit pushed; prints its result line
sync_through_lb() {
  local tag=$1
  echo "$tag" >>"$W/syncs"
  client dev edit --user alice --scope course_sync --id "lb-check-$tag" --payload "{\"title\":\"$tag\",\"progress\":0.5}" >/dev/null \
      || fail "edit exited $?"
  local out rc=0
  out=$(client dev sync --user alice --scope course_sync --server "$LB" --token "$ALICE") || rc=$?
  [ $rc = 0 ] || fail "sync through the balancer ($tag) exited $rc: $out"
  local pending
  pending=$(client dev records --user alice --scope course_sync --json | jq '[.outbox[]?] | length')
  [ "$pending" = 0 ] || fail "sync $tag left $pending edits in the outbox"
  echo "$out"
}

metric() {  # metric N 'name{labels...}' -> value on instance N (0 when absent)
  curl -s -m 5 "http://127.0.0.1:$((8800 + $1))/metrics" | awk -v m="$2" 'index($0, m) == 1 {v=$2} END {print v+0}'
}
req_count() {  # req_count N ENDPOINT STATUS
  curl -s -m 5 "http://127.0.0.1:$((8800 + $1))/metrics" \
      | awk -v e="endpoint=\"$2\"" -v s="status=\"$3\"" '/^leasesync_server_requests_seconds_count/ && index($0, e) && index($0, s) {v=$2} END {print v+0}'
}

connections() { psql_value "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'leasesync-server'"; }
connections_are() { [ "$(connections)" = "$1" ]; }

# ---------------------------------------------------------------- balancers

hap_cmd() {  # a command on HAProxy's runtime API (a TCP socket on 127.0.0.1 in this namespace)
  exec 3<>"/dev/tcp/127.0.0.1/$HAPROXY_ADMIN_PORT"
  printf '%s\n' "$1" >&3
  cat <&3
  exec 3<&-
}
hap_status() { hap_cmd "show stat" | awk -F, -v s="$1" '$1=="leasesync_servers" && $2==s {print $18}'; }

HALF_OPEN_WATCHERS=()
LB_PID=
start_haproxy() {
  sed -e "s#/run/haproxy/admin.sock mode 660 level admin#ipv4@127.0.0.1:$HAPROXY_ADMIN_PORT level admin#" \
      -e "s#^\(\s*\)log /dev/log.*#\1log stdout format raw local0#" \
      -e "/^\s*\(chroot\|user\|group\|daemon\)\b/d" \
      -e "s#bind :8787#bind 127.0.0.1:8800#" \
      "$REPO/scale/haproxy.cfg" >"$W/haproxy.cfg"
  haproxy -c -f "$W/haproxy.cfg" >"$W/haproxy-check.txt" 2>&1 || fail "haproxy -c: $(cat "$W/haproxy-check.txt")"
  haproxy -db -f "$W/haproxy.cfg" >>"$W/haproxy.log" 2>&1 &
  LB_PID=$!; PIDS+=($!)
  for _ in $(seq 1 100); do
    [ "$(hap_status s1 2>/dev/null)$(hap_status s2 2>/dev/null)$(hap_status s3 2>/dev/null)" = UPUPUP ] && return 0
    sleep 0.1
  done
  fail "haproxy did not see three instances up: $(hap_cmd 'show stat' | cut -d, -f1,2,18)"
}
start_nginx() {
  mkdir -p "$W/nginx"
  sed -e "s#listen 8787;#listen 127.0.0.1:8800;#" "$REPO/scale/nginx.conf" >"$W/nginx/leasesync.conf"
  cat >"$W/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $W/nginx/nginx.pid;
error_log $W/nginx/error.log notice;
daemon off;
events { worker_connections 512; }
http {
  access_log $W/nginx/access.log;
  client_body_temp_path $W/nginx/body;
  proxy_temp_path $W/nginx/proxy;
  fastcgi_temp_path $W/nginx/fastcgi;
  uwsgi_temp_path $W/nginx/uwsgi;
  scgi_temp_path $W/nginx/scgi;
  include $W/nginx/leasesync.conf;
}
EOF
  nginx -t -c "$W/nginx/nginx.conf" >"$W/nginx/t.txt" 2>&1 || fail "nginx -t: $(cat "$W/nginx/t.txt")"
  nginx -c "$W/nginx/nginx.conf" >"$W/nginx/stdout" 2>&1 &
  LB_PID=$!; PIDS+=($!)
  for _ in $(seq 1 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$LB/health")" = 200 ] && return 0; sleep 0.1; done
  fail "nginx does not answer: $(cat "$W/nginx/error.log")"
}
stop_lb() {
  kill -TERM "$LB_PID" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$LB_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$LB_PID" 2>/dev/null || true
  wait "$LB_PID" 2>/dev/null || true
}

# until CONDITION (a command) succeeds, at most SECONDS; prints the elapsed ms, or fails with WHAT
wait_for() {
  local seconds=$1 what=$2; shift 2
  local t0 end; t0=$(now_ms); end=$((t0 + seconds * 1000))
  while [ "$(now_ms)" -lt "$end" ]; do
    if "$@" >/dev/null 2>&1; then echo $(( $(now_ms) - t0 )); return 0; fi
    sleep 0.1
  done
  fail "$what: not within $seconds s"
}
is_status() { [ "$(hap_status "$1")" = "$2" ]; }
health_is() { [ "$(health_code "$1")" = "$2" ]; }
lb_reaches() {  # lb_reaches INSTANCE_ID: one of 6 /health through the balancer names it
  for _ in 1 2 3 4 5 6; do [ "$(curl -s -m 5 "$LB/health" | jq -r '.instanceId // empty')" = "$1" ] && return 0; done
  return 1
}

# nginx's answer when it sent nothing must be 503 (the map + error_page of scale/nginx.conf), while a
# 502 after a connected attempt must stay 502. Two controls on port 8810, upstreams on 8821..8823:
#   a) nothing listens there: with the config as shipped 503, without its error_page line 502;
#   b) every upstream a server that accepts and closes at once: 502 with the config as shipped.
nginx_502_controls() {
  local variant code
  for variant in shipped no-error-page closing; do
    mkdir -p "$W/nginx-$variant"
    sed -e "s#listen 8787;#listen 127.0.0.1:8810;#" -e "s#127.0.0.1:880\([1-3]\)#127.0.0.1:882\1#" \
        "$REPO/scale/nginx.conf" >"$W/nginx-$variant/leasesync.conf"
    [ "$variant" != no-error-page ] || sed -i '/error_page 502/d' "$W/nginx-$variant/leasesync.conf"
    [ "$variant" != closing ] || sed -i 's#127.0.0.1:882[23]#127.0.0.1:8821#' "$W/nginx-$variant/leasesync.conf"
    sed -e "s#$W/nginx/#$W/nginx-$variant/#g" -e "s#$W/nginx/leasesync.conf#$W/nginx-$variant/leasesync.conf#" \
        "$W/nginx/nginx.conf" >"$W/nginx-$variant/nginx.conf"
    local closer=
    if [ "$variant" = closing ]; then
      python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 8821)); s.listen(16); s.settimeout(1)
end = time.time() + 60
while time.time() < end:
    try:
        c, _ = s.accept(); c.recv(65536); c.close()
    except socket.timeout:
        pass' &
      closer=$!; PIDS+=($!)
      for _ in $(seq 1 100); do ss -Hltn '( sport = :8821 )' | grep -q . && break; sleep 0.1; done
    fi
    nginx -c "$W/nginx-$variant/nginx.conf" >/dev/null 2>&1 &
    local pid=$!; PIDS+=($!)
    # ready when it listens (a request would already mark upstreams failed)
    for _ in $(seq 1 50); do ss -Hltn '( sport = :8810 )' | grep -q . && break; sleep 0.1; done
    code=$(curl -s -o /dev/null -m 10 -w '%{http_code}' -X POST http://127.0.0.1:8810/v1/users/bob/scopes/message_sync/changes \
        -H 'Content-Type: application/json' --data '{"changes":[]}' || true)
    log "nginx control ($variant): a push answered $code"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    [ -z "$closer" ] || { kill "$closer" 2>/dev/null; wait "$closer" 2>/dev/null || true; }
    case "$variant" in
      shipped) [ "$code" = 503 ] || fail "nginx as shipped answered $code with no instance (want 503)";;
      *) [ "$code" = 502 ] || fail "nginx ($variant) answered $code (want 502)";;
    esac
  done
}

# ---------------------------------------------------------------- one balancer, all checks

check_balancer() {
  local lb=$1
  log "=== $lb in front of 3 instances on 127.0.0.1:8801..8803 (balancer 127.0.0.1:8800) ==="
  "start_$lb"
  [ "$lb" != nginx ] || nginx_502_controls
  log "spread of 30 GET /health: $(spread 30)"
  log "sync through $lb: $(sync_through_lb "$lb-first")"

  # --- kill -9 of instance 2
  local t f ms id2
  f="$W/$lb-kill.traffic"; : >"$f"
  traffic_start 25 "$f"; sleep 1
  kill9_instance 2; t=$(now_ms)
  log "instance 2 killed (kill -9)"
  if [ "$lb" = haproxy ]; then
    ms=$(wait_for 15 "haproxy marks s2 DOWN" is_status s2 DOWN)
    log "haproxy marked s2 DOWN ${ms} ms after the kill"
  fi
  sleep 3
  for i in 1 2 3; do log "sync through $lb with instance 2 dead: $(sync_through_lb "$lb-kill-$i")"; done
  log "spread of 30 GET /health with instance 2 dead: $(spread 30)"
  # --- restart it
  t=$(now_ms); start_instance 2 $SERVE_OPTS; wait_instance 2; id2=$(instance_id 2)
  log "instance 2 restarted as $id2, healthy $(( $(now_ms) - t )) ms after its start command"
  if [ "$lb" = haproxy ]; then
    ms=$(wait_for 20 "haproxy marks s2 UP" is_status s2 UP); log "haproxy marked s2 UP ${ms} ms after it became healthy"
  fi
  ms=$(wait_for 30 "the balancer sends to the restarted instance" lb_reaches "$id2")
  log "$lb sends to the restarted instance $( [ "$lb" = haproxy ] && echo "${ms} ms after marking it UP" || echo "${ms} ms after it became healthy")"
  traffic_stop
  log "traffic through $lb during kill + restart: $(traffic_summary "$f")"
  log "spread of 30 GET /health after the restart: $(spread 30)"

  # --- database cut of instance 3
  f="$W/$lb-cut.traffic"; : >"$f"
  traffic_start 40 "$f"; sleep 1
  # instance 3's sessions in PostgreSQL (by client port), to see how long they outlive the cut
  local ports; ports=$(ss -Htnp state established "( dport = :$PGPORT )" \
      | awk -v p="pid=${INSTANCE_PIDS[3]}," 'index($0, p) {n = split($3, a, ":"); print a[n]}' | paste -sd, -)
  cut_db 3; t=$(now_ms)
  ( for _ in $(seq 1 400); do
      c=$(psql_value "SELECT count(*) FROM pg_stat_activity WHERE client_port IN (${ports:-0})")
      if [ "$c" = 0 ]; then echo "$(( ($(now_ms) - t) / 1000 ))" >"$W/$lb-half-open"; exit 0; fi
      sleep 1
    done; echo "over 400" >"$W/$lb-half-open" ) &
  PIDS+=($!); HALF_OPEN_WATCHERS+=("$lb:$!:$(echo "$ports" | tr ',' '\n' | grep -c .)")
  ms=$(wait_for 20 "instance 3 /health answers 503" health_is 3 503); log "database of instance 3 cut; its /health answers 503 after ${ms} ms"
  if [ "$lb" = haproxy ]; then
    ms=$(wait_for 20 "haproxy marks s3 DOWN" is_status s3 DOWN); log "haproxy marked s3 DOWN $(( $(now_ms) - t )) ms after the cut"
  fi
  sleep 3
  for i in 1 2; do log "sync through $lb with instance 3 cut off: $(sync_through_lb "$lb-cut-$i")"; done
  log "spread of 30 GET /health with instance 3 cut off: $(spread 30)"
  uncut_db 3; t=$(now_ms)
  ms=$(wait_for 30 "instance 3 /health answers 200 again" health_is 3 200); log "connections restored; instance 3 /health answers 200 after ${ms} ms"
  if [ "$lb" = haproxy ]; then
    ms=$(wait_for 20 "haproxy marks s3 UP" is_status s3 UP); log "haproxy marked s3 UP $(( $(now_ms) - t )) ms after the restore"
  fi
  ms=$(wait_for 30 "the balancer sends to instance 3 again" lb_reaches "$(instance_id 3)")
  log "$lb sends to instance 3 again $(( $(now_ms) - t )) ms after the restore; sessions in PostgreSQL now: $(connections) (the cut instance's old ones are half-open)"
  traffic_stop
  log "traffic through $lb during cut + restore: $(traffic_summary "$f")"

  # --- retries: a POST that reached an instance is never re-sent; GETs are
  if [ "$lb" = haproxy ]; then hap_cmd "disable health leasesync_servers/s3" >/dev/null; fi
  local push503=$(req_count 3 push 503) pull503=$(req_count 3 pull 503) posts=() gets=()
  cut_db 3
  wait_for 20 "instance 3 /health answers 503" health_is 3 503 >/dev/null
  for i in $(seq 1 30); do posts+=("$(push_one "r$i")"); done
  for i in $(seq 1 30); do gets+=("$(pull_one)"); done
  uncut_db 3
  local push503b=$(req_count 3 push 503) pull503b=$(req_count 3 pull 503)
  local gets_bad posts_503 posts_ok
  gets_bad=$(printf '%s\n' "${gets[@]}" | grep -vc '^200$' || true)
  posts_503=$(printf '%s\n' "${posts[@]}" | grep -c '^503$' || true)
  posts_ok=$(printf '%s\n' "${posts[@]}" | grep -c '^200$' || true)
  log "retries with instance 3 answering 503$( [ "$lb" = haproxy ] && echo ' (its health check paused)'): 30 pulls -> $((30 - gets_bad)) x 200, $gets_bad other; instance 3 answered $((pull503b - pull503)) of them 503 (re-sent elsewhere by $lb)"
  log "                                  30 pushes -> $posts_ok x 200, $posts_503 x 503; instance 3 answered $((push503b - push503)) pushes 503 (each handed back to the client, none re-sent)"
  [ "$gets_bad" = 0 ] || fail "$lb handed a pull's 503 to the client"
  [ "$posts_503" = "$((push503b - push503))" ] || fail "$lb: clients saw $posts_503 push 503s, instance 3 answered $((push503b - push503))"
  [ $((posts_ok + posts_503)) = 30 ] || fail "$lb: pushes ended otherwise: ${posts[*]}"
  if [ "$lb" = haproxy ]; then hap_cmd "enable health leasesync_servers/s3" >/dev/null; fi
  wait_for 30 "instance 3 healthy again" health_is 3 200 >/dev/null

  # --- every instance gone: the balancer must answer 503 (nothing sent), never 502 to a push
  for n in 1 2 3; do kill9_instance "$n"; done
  local first second third
  first="$(push_one x1)/$(pull_one)"; sleep 5; second="$(push_one x2)/$(pull_one)"
  log "all three instances killed: push/pull through $lb at once -> $first, 5 s later -> $second"
  [ "$first" = 503/503 ] && [ "$second" = 503/503 ] || fail "$lb answered $first, $second with no instance up (want 503)"
  curl -s -D "$W/$lb-outage.headers" -o "$W/$lb-outage.body" "$LB/v1/users/bob/scopes/message_sync/changes" -H "Authorization: Bearer $BOB" || true
  log "  its answer: $(head -1 "$W/$lb-outage.headers" | tr -d '\r'), $(grep -i '^retry-after' "$W/$lb-outage.headers" | tr -d '\r'), $(cat "$W/$lb-outage.body")"
  for n in 1 2 3; do start_instance "$n" $SERVE_OPTS; done
  for n in 1 2 3; do wait_instance "$n"; done
  if [ "$lb" = haproxy ]; then
    for s in s1 s2 s3; do wait_for 20 "haproxy marks $s UP" is_status "$s" UP >/dev/null; done
  fi
  for n in 1 2 3; do wait_for 30 "the balancer sends to instance $n" lb_reaches "$(instance_id "$n")" >/dev/null; done
  log "all three restarted and in rotation again: $(spread 30)"
  stop_lb
  log "$lb stopped"
}

# ---------------------------------------------------------------- main

start_postgres
for n in 1 2 3; do start_instance "$n" $SERVE_OPTS; done
for n in 1 2 3; do wait_instance "$n"; done
read_tokens
log "instances: $(for n in 1 2 3; do printf '%s=%s ' "$n" "$(instance_id "$n")"; done)"
log "database connections of the 3 instances (default pool 10): $(connections) (formula: 3 x (10 + 1) = 33)"

[ "$WHICH" = nginx ] || check_balancer haproxy
[ "$WHICH" = haproxy ] || check_balancer nginx

# ---------------------------------------------------------------- what an instance costs
rss() { awk '/^VmRSS/ {print int($2/1024)}' "/proc/${INSTANCE_PIDS[$1]}/status"; }
thr() { awk '/^Threads/ {print $2}' "/proc/${INSTANCE_PIDS[$1]}/status"; }
log "instance 1 idle: RSS $(rss 1) MB, $(thr 1) threads ($SERVER_JAVA_OPTS)"
f="$W/load.codes"; : >"$f"
load_pids=()
t0=$(now_ms)
for c in 1 2 3 4 5 6 7 8; do
  ( for i in $(seq 1 150); do echo "$(push_one "load$c-$i" http://127.0.0.1:8801) $(pull_one http://127.0.0.1:8801)"; done >>"$f" ) &
  load_pids+=($!); PIDS+=($!)
done
peak_rss=0; peak_thr=0; peak_conn=0
while :; do
  running=0; for p in "${load_pids[@]}"; do kill -0 "$p" 2>/dev/null && running=1; done
  r=$(rss 1); [ "$r" -gt "$peak_rss" ] && peak_rss=$r
  th=$(thr 1); [ "$th" -gt "$peak_thr" ] && peak_thr=$th
  [ $running = 1 ] || break
  [ $(( $(now_ms) - t0 )) -lt 300000 ] || fail "load did not finish in 5 minutes"
  sleep 0.2
done
for p in "${load_pids[@]}"; do wait "$p" 2>/dev/null || true; done
elapsed=$(( $(now_ms) - t0 ))
log "instance 1 under load (8 clients x 150 push+pull, $(grep -c '^200 200$' "$f") of $(wc -l <"$f") pairs 200, ${elapsed} ms): peak RSS ${peak_rss} MB, peak ${peak_thr} threads; after: RSS $(rss 1) MB; pool pending now $(metric 1 'hikaricp_connections_pending{'), connection timeouts $(metric 1 'hikaricp_connections_timeout_total{')"
log "instances 2 and 3 meanwhile: RSS $(rss 2) / $(rss 3) MB, $(thr 2) / $(thr 3) threads"
log "database connections now: $(connections)"
for w in "${HALF_OPEN_WATCHERS[@]}"; do
  IFS=: read -r name pid count <<<"$w"
  wait "$pid" 2>/dev/null || true
  log "$name run: the $count sessions instance 3 had before its cut stayed in PostgreSQL (half-open) for $(cat "$W/$name-half-open") s after the cut (tcp_keepalives_idle 60 s, interval 10 s, count 6)"
done

# ---------------------------------------------------------------- jobs: each occurrence once
dups=$(psql_value "SELECT count(*) FROM (SELECT job_name, slot FROM job_runs WHERE slot IS NOT NULL AND result = 'ok' GROUP BY job_name, slot HAVING count(*) > 1) d")
log "job runs in the cluster: $(psql_value "SELECT string_agg(job_name || ' ' || n || ' runs on ' || i || ' instances', '; ') FROM (SELECT job_name, count(*) n, count(DISTINCT instance_id) i FROM job_runs GROUP BY job_name) s"); occurrences run twice: $dups"
[ "$dups" = 0 ] || fail "a job occurrence ran twice"
# ---------------------------------------------------------------- what the tables hold now
log "rows and sizes (pg_total_relation_size, indexes included): $(psql_value "SELECT string_agg(t || ' ' || n || ' rows ' || pg_size_pretty(sz) || CASE WHEN n > 0 THEN ' (' || (sz / n) || ' B/row)' ELSE '' END, '; ') FROM (SELECT 'request_audit' t, (SELECT count(*) FROM request_audit) n, pg_total_relation_size('request_audit') sz UNION ALL SELECT 'idempotency_keys', (SELECT count(*) FROM idempotency_keys), pg_total_relation_size('idempotency_keys') UNION ALL SELECT 'applied_changes', (SELECT count(*) FROM applied_changes), pg_total_relation_size('applied_changes') UNION ALL SELECT 'sync_records', (SELECT count(*) FROM sync_records), pg_total_relation_size('sync_records') UNION ALL SELECT 'job_runs', (SELECT count(*) FROM job_runs), pg_total_relation_size('job_runs')) x")"
log "database size: $(psql_value "SELECT pg_size_pretty(pg_database_size('leasesync'))")"
log "OK: $(wc -l <"$W/syncs") syncs through the balancer(s), each with one edit pushed, all succeeded"
