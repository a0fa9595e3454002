#!/usr/bin/env bash
# Start-up and idle memory of leasesync against a bare JavaFX window (docs/benchmarks.md).
#
# Launches, interleaved, N rounds of:
#   bare      org.leasesync.bench.BareWindow (test sources): one Stage of leasesync's size, one Label
#   demo      leasesync's window with the embedded demo server
#   external  leasesync's window against a `serve` process started once by this script
# all with the same java, the same class-path form and the same JVM options (jlink/config.sh's
# JAVA_OPTIONS unless JAVA_OPTS is given), no AppCDS for any, under one Xvfb. For each run: the time
# from starting the command until the window is visible (xdotool polled every 20 ms), and VmRSS of the
# JVM after 5 s idle (IDLE_S). Prints every run, medians, and the ratios to the bare window.
#
# Usage: bash jlink/startup-vs-bare.sh [N]        (N >= 1 rounds, default 5)
#   JAVA=/path/to/bin/java     the runtime (default: java on the PATH)
#   JAVA_OPTS="..."            JVM options for all variants (default: JAVA_OPTIONS of jlink/config.sh)
#   VARIANTS="bare demo"       a subset
#   CDS=1                      AppCDS for every variant: one training run each first (dynamic archive,
#                              -XX:ArchiveClassesAtExit, kept in target/startup-cds-<variant>.jsa), then
#                              every measured run with -XX:SharedArchiveFile of its own archive
#   IDLE_S=20                  read VmRSS this many seconds after the window is visible (default 5)
#   DATA=existing              every leasesync run of a variant reuses one data directory, made by an
#                              unmeasured first start (a user's every start but the first: the database
#                              and the embedded server's exist); default DATA=new, a new one per run
#   NMT=1                      also run each leasesync variant and the bare window once with
#                              -XX:NativeMemoryTracking=summary and save `jcmd VM.native_memory summary`
#                              after IDLE_S s idle into target/startup-nmt-<variant>.txt
# Needs: xvfb, xdotool; `mvn -B -ntp -DskipTests package test-compile` before (target/leasesync.jar,
# target/lib/, target/test-classes/).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "startup-vs-bare.sh: N must be a positive number of rounds, got '$n'" >&2; exit 2; }
[[ "${IDLE_S:-5}" =~ ^[1-9][0-9]*$ ]] || { echo "startup-vs-bare.sh: IDLE_S must be a positive number of seconds, got '$IDLE_S'" >&2; exit 2; }
for tool in Xvfb xdotool; do
  command -v $tool >/dev/null || { echo "startup-vs-bare.sh: needs $tool (apt-get install xvfb xdotool)" >&2; exit 1; }
done
for f in target/leasesync.jar target/lib target/test-classes/org/leasesync/bench/BareWindow.class; do
  [ -e "$f" ] || { echo "startup-vs-bare.sh: $f is missing; run mvn -B -ntp -DskipTests package test-compile" >&2; exit 1; }
done
source jlink/config.sh
java=${JAVA:-java}
read -r -a opts <<< "${JAVA_OPTS:-${JAVA_OPTIONS[*]}}"
cp="target/leasesync.jar:$(ls target/lib/*.jar | tr '\n' ':')"
# the bare window as a jar (CDS refuses directories on the class path), beside leasesync's jars
(cd target/test-classes && jar cf ../startup-bare-window.jar org/leasesync/bench/BareWindow*.class)
bare_cp="target/startup-bare-window.jar:$cp"
variants=(${VARIANTS:-bare demo external})

display=:$(( 100 + RANDOM % 100 ))
Xvfb $display -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
tmp=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  kill $xvfb 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
sleep 1

if [[ " ${variants[*]} " == *" external "* ]]; then
  "$java" -Xmx256m -cp "$cp" org.leasesync.Launcher serve --port 0 --seed demo > "$tmp/serve.out" 2>"$tmp/serve.err" &
  server=$!
  for _ in $(seq 300); do grep -q '^token alice ' "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
  url=$(sed -n 's/^listening on //p' "$tmp/serve.out")
  token=$(sed -n 's/^token alice //p' "$tmp/serve.out")
  [ -n "$url" ] && [ -n "$token" ] || { echo "startup-vs-bare.sh: the server did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }
fi

# command line of a variant (extra JVM options first)
cmd() {
  local v=$1; shift
  case $v in
    bare) echo "$java ${opts[*]} $* -cp $bare_cp org.leasesync.bench.BareWindow" ;;
    demo) echo "$java ${opts[*]} $* -cp $cp org.leasesync.Launcher" ;;
    external) echo "$java ${opts[*]} $* -cp $cp org.leasesync.Launcher --server $url --user alice --token $token" ;;
  esac
}
title() { [ "$1" = bare ] && echo bare-window || echo leasesync; }

# AppCDS for all or none: each variant gets an archive of the classes its own start-up loads.
cds_opt() { [ "${CDS:-}" = 1 ] && echo "-XX:SharedArchiveFile=$PWD/target/startup-cds-$1.jsa" || true; }

# one run: prints "<ms to visible window> <VmRSS kB after IDLE_S s idle>"; with $2 = nmt, saves NMT instead
run() {
  local v=$1 mode=${2:-}
  local data
  if [ "${DATA:-new}" = existing ]; then data="$tmp/data-$v"; mkdir -p "$data"; else data=$(mktemp -d -p "$tmp"); fi
  local extra; extra=$(cds_opt "$v")
  [ "$mode" = nmt ] && extra="$extra -XX:NativeMemoryTracking=summary"
  [ "$mode" = train ] && extra="-XX:ArchiveClassesAtExit=$PWD/target/startup-cds-$v.jsa"
  local start; start=$(date +%s%N)
  # shellcheck disable=SC2046
  LEASESYNC_DATA_DIR=$data DISPLAY=$display $(cmd "$v" $extra) >"$tmp/$v.log" 2>&1 &
  local pid=$! ms=-1
  for _ in $(seq 3000); do   # up to 60 s
    if DISPLAY=$display xdotool search --onlyvisible --name "^$(title "$v")\$" >/dev/null 2>&1; then
      ms=$(( ($(date +%s%N) - start) / 1000000 )); break
    fi
    kill -0 $pid 2>/dev/null || break
    sleep 0.02
  done
  sleep "${IDLE_S:-5}"
  local rss; rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status 2>/dev/null || echo -1)
  if [ "$mode" = nmt ]; then
    jcmd $pid VM.native_memory summary > "target/startup-nmt-$v.txt" 2>&1 || true
    echo "rss_kb $rss" >> "target/startup-nmt-$v.txt"
  fi
  kill $pid 2>/dev/null; wait $pid 2>/dev/null || true
  echo "$ms ${rss:--1}"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "# java: $("$java" -version 2>&1 | head -1); options: ${opts[*]}; data: ${DATA:-new}; RSS after ${IDLE_S:-5} s; cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${CDS:-}" = 1 ]; then
  for v in "${variants[@]}"; do
    rm -f "target/startup-cds-$v.jsa"; run "$v" train >/dev/null
    [ -f "target/startup-cds-$v.jsa" ] || { echo "startup-vs-bare.sh: no CDS archive for $v: $(tail -3 "$tmp/$v.log")" >&2; exit 1; }
    echo "# AppCDS archive of $v: $(du -h "target/startup-cds-$v.jsa" | cut -f1)"
  done
fi
case "${DATA:-new}" in
  new) ;;
  existing) for v in "${variants[@]}"; do [ "$v" = bare ] || run "$v" >/dev/null; done
            echo "# data directories: one per variant, made by an unmeasured first start" ;;
  *) echo "startup-vs-bare.sh: DATA must be new or existing, got '$DATA'" >&2; exit 2 ;;
esac
declare -A ms rss
for i in $(seq 1 "$n"); do
  for v in "${variants[@]}"; do
    r=$(run "$v")
    echo "round $i $v window_ms=${r% *} rss_kb=${r#* }"
    ms[$v]+="${r% *} "; rss[$v]+="${r#* } "
  done
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for v in "${variants[@]}"; do
  m=$(echo ${ms[$v]} | tr ' ' '\n' | median); r=$(echo ${rss[$v]} | tr ' ' '\n' | median)
  echo "startup.$v.window_ms $m ms (runs: ${ms[$v]})"
  echo "startup.$v.idle_rss $(( r / 1024 )) MB (runs kB: ${rss[$v]})"
  declare "med_ms_$v=$m" "med_rss_$v=$r"
done
if [[ " ${variants[*]} " == *" bare "* ]]; then
  for v in "${variants[@]}"; do
    [ "$v" = bare ] && continue
    m=med_ms_$v; r=med_rss_$v
    awk -v a="${!m}" -v b="$med_ms_bare" -v c="${!r}" -v d="$med_rss_bare" -v v="$v" \
      'BEGIN {printf "ratio.startup.%s.window_vs_bare %.2f x (goal <= 1.3)\nratio.startup.%s.rss_vs_bare %.2f x (goal <= 1.3)\n", v, a/b, v, c/d}'
  done
fi
if [ "${NMT:-}" = 1 ]; then
  for v in "${variants[@]}"; do run "$v" nmt >/dev/null; echo "# NMT summary of $v: target/startup-nmt-$v.txt"; done
fi
