#!/usr/bin/env bash
# Proves the monitoring configuration of docs/deploy.md: Prometheus (Debian's `prometheus`) scrapes
# three `leasesync serve` instances with scale/prometheus/prometheus.yml and evaluates
# scale/prometheus/leasesync-alerts.yml — with 1 s intervals and every `for:` shortened to 2 s, the
# files otherwise unchanged — and the alerts fire for the faults they are meant for:
#   - one instance's database cut (and its /health polled, as a load balancer does):
#     LeasesyncDatabaseUnreachable and LeasesyncHealthCheckFailing for that instance only;
#   - one instance killed: LeasesyncInstanceDown for that instance only;
#   - the job alerts, on synthetic series (promtool test rules leasesync-alerts.test.yml).
# It also shows how the jobs' `job` tag arrives in Prometheus (as `exported_job`).
# Usage (root; apt-get install prometheus; mvn -B -ntp -q package -DskipTests first):
#   bash scale/monitoring-check.sh     (KEEP=1 keeps the work dir). Network namespace of its own,
# 127.0.0.1 only, bounded loops, stops everything it started. About 2 minutes.
source "$(dirname "$0")/deploy-lib.sh"
command -v prometheus >/dev/null || { echo "monitoring-check.sh: prometheus is missing (apt-get install -y prometheus)" >&2; exit 2; }
enter_netns "$@"
make_workdir
PROM=http://127.0.0.1:9090

( cd "$REPO/scale/prometheus" && promtool check rules leasesync-alerts.yml >/dev/null && promtool test rules leasesync-alerts.test.yml >"$W/promtool-test.txt" 2>&1 ) \
    || fail "promtool test rules: $(cat "$W/promtool-test.txt")"
log "promtool test rules leasesync-alerts.test.yml: the job alerts behave on synthetic series (SUCCESS)"
start_postgres
for n in 1 2 3; do start_instance "$n" --seed demo; done
for n in 1 2 3; do wait_instance "$n"; done
read_tokens

mkdir -p "$W/prom"
sed -e 's/scrape_interval: 15s/scrape_interval: 1s/' -e 's/evaluation_interval: 15s/evaluation_interval: 1s/' \
    "$REPO/scale/prometheus/prometheus.yml" >"$W/prom/prometheus.yml"
sed -E 's/^(\s*)for: .*/\1for: 2s/' "$REPO/scale/prometheus/leasesync-alerts.yml" >"$W/prom/leasesync-alerts.yml"
promtool check config "$W/prom/prometheus.yml" >"$W/prom/check.txt" 2>&1 || fail "promtool: $(cat "$W/prom/check.txt")"
prometheus --config.file="$W/prom/prometheus.yml" --storage.tsdb.path="$W/prom/data" \
    --web.listen-address=127.0.0.1:9090 >"$W/prom/log" 2>&1 &
PIDS+=($!)

query() { curl -s -m 5 "$PROM/api/v1/query" --data-urlencode "query=$1"; }
targets_up() { [ "$(query 'sum(up{job="leasesync"})' | jq -r '.data.result[0].value[1] // 0')" = 3 ]; }
firing() {  # firing ALERT INSTANCE: the alert fires for that instance
  curl -s -m 5 "$PROM/api/v1/alerts" | jq -e --arg a "$1" --arg i "$2" \
      '[.data.alerts[] | select(.state == "firing" and .labels.alertname == $a and .labels.instance == $i)] | length > 0' >/dev/null
}
firing_list() {
  curl -s -m 5 "$PROM/api/v1/alerts" | jq -r '[.data.alerts[] | select(.state == "firing") | "\(.labels.alertname) \(.labels.instance // .labels.exported_job // "")"] | sort | join(", ")'
}
wait_for() {
  local seconds=$1 what=$2; shift 2
  local t0 end; t0=$(now_ms); end=$((t0 + seconds * 1000))
  while [ "$(now_ms)" -lt "$end" ]; do
    if "$@"; then echo $(( $(now_ms) - t0 )); return 0; fi
    sleep 0.5
  done
  fail "$what: not within $seconds s (firing: $(firing_list))"
}

ms=$(wait_for 60 "Prometheus scrapes the three instances" targets_up); log "Prometheus scrapes 3 targets (up = 1) after ${ms} ms"
for n in 1 2 3; do
  curl -s -o /dev/null "http://127.0.0.1:$((8800 + n))/v1/users/alice/scopes/course_sync/changes" -H "Authorization: Bearer $ALICE"
done
sleep 3
log "series of the jobs' timer: $(query 'leasesync_server_jobs_seconds_count' | jq -r '[.data.result[].metric | "{" + ([to_entries[] | select(.key != "__name__") | "\(.key)=\(.value)"] | join(",")) + "}"] | .[0:2] | join(" ")')"
log "firing with all instances healthy: [$(firing_list)]"
[ -z "$(firing_list)" ] || fail "alerts fire on a healthy cluster"

cut_db 3; t=$(now_ms)
# what a balancer does (GET /health every 2 s) and what clients do (requests that get 503)
( for i in $(seq 1 40); do
    curl -s -o /dev/null -m 5 http://127.0.0.1:8803/health
    curl -s -o /dev/null -m 5 "http://127.0.0.1:8803/v1/users/alice/scopes/course_sync/changes" -H "Authorization: Bearer $ALICE"
    sleep 1
  done ) & PIDS+=($!)
ms=$(wait_for 60 "LeasesyncDatabaseUnreachable for instance 3" firing LeasesyncDatabaseUnreachable 127.0.0.1:8803)
log "database of instance 3 cut: LeasesyncDatabaseUnreachable fires for 127.0.0.1:8803 after ${ms} ms"
ms=$(wait_for 60 "LeasesyncHealthCheckFailing for instance 3" firing LeasesyncHealthCheckFailing 127.0.0.1:8803)
log "LeasesyncHealthCheckFailing fires for 127.0.0.1:8803 $(( $(now_ms) - t )) ms after the cut"
kill9_instance 2; t=$(now_ms)
ms=$(wait_for 60 "LeasesyncInstanceDown for instance 2" firing LeasesyncInstanceDown 127.0.0.1:8802)
log "instance 2 killed: LeasesyncInstanceDown fires for 127.0.0.1:8802 after ${ms} ms"
log "firing now: [$(firing_list)]"
if firing_list | grep -q '127.0.0.1:8801'; then fail "an alert fires for the healthy instance 1"; fi
uncut_db 3
log "OK"
