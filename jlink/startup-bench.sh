#!/usr/bin/env bash
# Start-up benchmark under Xvfb (docs/benchmarks.md): time until the leasesync window is mapped,
# measured from outside with xdotool, and the process's RSS once it has been idle for 5 s.
# Runs each variant N times (interleaved, so machine load drifts hit all alike) and prints medians.
# Needs: xvfb, xdotool. Usage: bash jlink/startup-bench.sh [N]   (after jlink/build.sh)
# BEFORE_JAR=/path/to/older/leasesync.jar adds that jar (with its lib/ beside it) as a variant.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
image=target/dist/leasesync
cfg=$image/lib/app/leasesync.cfg
for tool in Xvfb xdotool; do command -v $tool >/dev/null || { echo "startup-bench.sh: needs $tool (apt-get install xvfb xdotool)" >&2; exit 1; }; done
[ -x $image/bin/leasesync ] || { echo "startup-bench.sh: build the image first: bash jlink/build.sh" >&2; exit 1; }

display=:$(( 90 + RANDOM % 100 ))
Xvfb $display -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
tmp=$(mktemp -d)
trap 'kill $xvfb 2>/dev/null; cp -f "$tmp/cfg" "$cfg" 2>/dev/null || true; rm -rf "$tmp"' EXIT
cp "$cfg" "$tmp/cfg"
sleep 1

# one run: prints "<ms to window> <rss kB after 5 s idle>"
run() {
  local data; data=$(mktemp -d -p "$tmp")
  local start; start=$(date +%s%N)
  LEASESYNC_DATA_DIR=$data DISPLAY=$display "$@" >/dev/null 2>&1 &
  local pid=$!
  DISPLAY=$display timeout 60 xdotool search --sync --onlyvisible --name '^leasesync$' >/dev/null
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  sleep 5
  local rss; rss=$(ps -o rss= --ppid $pid --pid $pid | sort -n | tail -1 | tr -d ' ')
  kill $pid 2>/dev/null; wait $pid 2>/dev/null || true
  echo "$ms $rss"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A ms rss
variants=(classpath image-no-appcds image-appcds)
[ -n "${BEFORE_JAR:-}" ] && variants=(classpath-before "${variants[@]}")
for i in $(seq 1 "$n"); do
  for v in "${variants[@]}"; do
    case $v in
      classpath-before) r=$(run java -jar "$BEFORE_JAR") ;;
      classpath) r=$(run java -jar target/leasesync.jar) ;;
      image-no-appcds) sed '/SharedArchiveFile/d' "$tmp/cfg" > "$cfg"; r=$(run $image/bin/leasesync); cp "$tmp/cfg" "$cfg" ;;
      image-appcds) r=$(run $image/bin/leasesync) ;;
    esac
    ms[$v]+="${r% *} "; rss[$v]+="${r#* } "
  done
done
for v in "${variants[@]}"; do
  echo "startup.$v.window_ms $(echo ${ms[$v]} | tr ' ' '\n' | median) ms (runs: ${ms[$v]})"
  echo "startup.$v.idle_rss $(( $(echo ${rss[$v]} | tr ' ' '\n' | median) / 1024 )) MB"
done
