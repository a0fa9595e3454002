#!/usr/bin/env bash
# Memory and idle CPU of leasesync living in the tray (docs/benchmarks.md), next to ownCloud's and
# Nextcloud's desktop clients when they are installed.
#
# Under one Xvfb with openbox (window manager), trayer (an XEmbed tray host) and a D-Bus session bus,
# runs interleaved N rounds of every variant:
#   demo       leasesync's window on the embedded demo server
#   external   leasesync's window against a `serve` process started once by this script
#   owncloud   `owncloud` (owncloud-client), no account: its set-up wizard, then the tray
#   nextcloud  `nextcloud` (nextcloud-desktop), no account: the same
# For each run: wait for the window and SETTLE_S more, then
#   open       CPU-s used in WINDOW_S s with the window shown, RSS and PSS at the end
#   closed     the window closed with `wmctrl -c` (to the tray), RSS and PSS WINDOW_S s later (of the
#              process the window handed the tray over to, once it has)
#   idle       CPU-s used in the next WINDOW_S s, IDLE_DELAY_S after the closed figures (no sync runs:
#              --schedule-interval 1h, and the start-up sync is over), RSS and PSS at the end, and the
#              threads that used CPU in it
#              (/proc/PID/task/*/stat utime+stime, by thread name)
# CPU is given per minute. Prints every run, then the median of each figure per variant.
#
# Usage: bash jlink/tray-memory.sh [N]           (N >= 1 rounds, default 3)
#   JAVA=/path/to/bin/java   the runtime (default: java on the PATH)
#   JAVA_OPTS="..."          leasesync's JVM options (default: JAVA_OPTIONS of jlink/config.sh)
#   APP_IMAGE=target/dist/leasesync   run the app image's launcher instead of java -jar (its own options)
#   VARIANTS="demo external" a subset (peers that are not installed are skipped, with a line saying so)
#   WINDOW_S=60 SETTLE_S=20  the measuring window and the settling time after the window appears
#   IDLE_DELAY_S=0           more seconds between the closed and the idle figures (a process that just
#                            started, as the tray process after a handover, is still compiling)
#   NMT=1                    leasesync with -XX:NativeMemoryTracking=summary; `jcmd VM.native_memory
#                            summary` and `jcmd Thread.print` of the idle process go to target/tray-<variant>-<round>-*.txt
# Needs: xvfb openbox trayer dbus x11-utils wmctrl; `mvn -B -ntp -DskipTests package` before.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "tray-memory.sh: N must be a positive number of rounds, got '$n'" >&2; exit 2; }
window_s=${WINDOW_S:-60}
settle_s=${SETTLE_S:-20}
idle_delay_s=${IDLE_DELAY_S:-0}
for tool in Xvfb openbox trayer dbus-daemon wmctrl; do
  command -v $tool >/dev/null || { echo "tray-memory.sh: needs $tool (apt-get install xvfb openbox trayer dbus x11-utils wmctrl)" >&2; exit 1; }
done
[ -e target/leasesync.jar ] || { echo "tray-memory.sh: target/leasesync.jar is missing; run mvn -B -ntp -DskipTests package" >&2; exit 1; }
source jlink/config.sh
java=${JAVA:-java}
read -r -a opts <<< "${JAVA_OPTS:-${JAVA_OPTIONS[*]}}"
[ "${NMT:-0}" = 1 ] && opts+=(-XX:NativeMemoryTracking=summary)
if [ -n "${APP_IMAGE:-}" ]; then
  [ -x "$APP_IMAGE/bin/leasesync" ] || { echo "tray-memory.sh: no $APP_IMAGE/bin/leasesync (bash jlink/build.sh)" >&2; exit 1; }
  leasesync=("$APP_IMAGE/bin/leasesync")   # its own JVM options and AppCDS archive
else
  leasesync=("$java" "${opts[@]}" -jar target/leasesync.jar)
fi
variants=()
for v in ${VARIANTS:-demo external owncloud nextcloud}; do
  case $v in
    owncloud|nextcloud) command -v $v >/dev/null || { echo "# $v: not installed, skipped"; continue; } ;;
  esac
  variants+=("$v")
done

tmp=$(mktemp -d)
display=:$(( 200 + RANDOM % 100 ))
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "${DBUS_PID:-}" ] && kill "$DBUS_PID" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
Xvfb $display -screen 0 1366x768x24 -nolisten tcp >/dev/null 2>&1 & pids+=($!)
sleep 1
DISPLAY=$display openbox >/dev/null 2>&1 & pids+=($!)
sleep 1
DISPLAY=$display trayer --edge top --align right --widthtype request --height 24 >/dev/null 2>&1 & pids+=($!)
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | sed -n 1p)
DBUS_PID=$(echo "$bus" | sed -n 2p)
export DISPLAY=$display GDK_BACKEND=x11
sleep 1

server_args=()
if [[ " ${variants[*]} " == *" external "* ]]; then
  "$java" -Xmx256m -jar target/leasesync.jar serve --port 0 --seed demo >"$tmp/serve.out" 2>"$tmp/serve.err" & pids+=($!)
  for _ in $(seq 300); do grep -q '^token alice ' "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
  url=$(sed -n 's/^listening on //p' "$tmp/serve.out")
  token=$(sed -n 's/^token alice //p' "$tmp/serve.out")
  [ -n "$url" ] && [ -n "$token" ] || { echo "tray-memory.sh: the server did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }
  server_args=(--server "$url" --user alice --token "$token")
fi

cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
kb() { awk -v k="$2:" '$1==k {print $2}' "/proc/$1/${3:-status}"; }
pss() { kb "$1" Pss smaps_rollup; }
hz=$(getconf CLK_TCK)
# thread name -> CPU nanoseconds of all of a process's threads of that name (schedstat's run time: the
# idle figures are a few CPU-ms a minute per thread, below the 10 ms of a clock tick)
threads() {
  for t in /proc/$1/task/*; do
    [ -r "$t/schedstat" ] || continue
    printf '%s\t%s\n' "$(tr ' ' '_' < "$t/comm" 2>/dev/null)" "$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)"
  done | sort
}
# the window of a process (by _NET_WM_PID), polled up to 60 s
window_of() {
  for _ in $(seq 1 300); do
    w=$(wmctrl -lp | awk -v p="$1" '$3==p {print $1; exit}')
    [ -n "$w" ] && { echo "$w"; return; }
    sleep 0.2
  done
}
start() {   # variant round -> pid
  local d="$tmp/$1-$2"
  mkdir -p "$d"
  case $1 in
    demo) "${leasesync[@]}" --data-dir "$d" --schedule-interval 1h >"$d/out" 2>&1 & ;;
    external) "${leasesync[@]}" --data-dir "$d" --schedule-interval 1h "${server_args[@]}" >"$d/out" 2>&1 & ;;
    *) HOME="$d" XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data" $1 >"$d/out" 2>&1 & ;;
  esac
  echo $!
}

printf '%-9s %5s %9s %9s %9s %9s %9s %9s %9s %9s\n' variant round open_cpu open_rss open_pss \
  closed_rss closed_pss idle_cpu idle_rss idle_pss
results="$tmp/results"
for r in $(seq 1 "$n"); do
  for v in "${variants[@]}"; do
    pid=$(start "$v" "$r")
    w=$(window_of "$pid")
    if [ -z "$w" ]; then echo "$v $r: no window in 60 s" >&2; kill "$pid"; continue; fi
    sleep "$settle_s"
    c0=$(cpu_ticks "$pid"); sleep "$window_s"; c1=$(cpu_ticks "$pid")
    open_cpu=$(awk -v a="$c0" -v b="$c1" -v h="$hz" -v s="$window_s" 'BEGIN{printf "%.3f", (b-a)/h*60/s}')
    open_rss=$(kb "$pid" VmRSS); open_pss=$(pss "$pid")
    wmctrl -i -c "$w"
    sleep "$window_s"
    if [[ $v == demo || $v == external ]] && ! kill -0 "$pid" 2>/dev/null; then
      # the window handed the tray over to a process without JavaFX (TrayHandover): measure that one
      pid=$(grep -ho 'handed the tray over to process [0-9]*' "$tmp/$v-$r"/logs/*.log | tail -1 | awk '{print $NF}')
      echo "    $v $r: the window handed the tray over to process $pid" >&2
    fi
    closed_rss=$(kb "$pid" VmRSS); closed_pss=$(pss "$pid")
    sleep "$idle_delay_s"
    threads "$pid" > "$tmp/t0"
    c0=$(cpu_ticks "$pid"); sleep "$window_s"; c1=$(cpu_ticks "$pid")
    threads "$pid" > "$tmp/t1"
    idle_cpu=$(awk -v a="$c0" -v b="$c1" -v h="$hz" -v s="$window_s" 'BEGIN{printf "%.3f", (b-a)/h*60/s}')
    idle_rss=$(kb "$pid" VmRSS); idle_pss=$(pss "$pid")
    printf '%-9s %5s %9s %9s %9s %9s %9s %9s %9s %9s\n' "$v" "$r" "$open_cpu" "$((open_rss/1024))" \
      "$((open_pss/1024))" "$((closed_rss/1024))" "$((closed_pss/1024))" "$idle_cpu" "$((idle_rss/1024))" \
      "$((idle_pss/1024))" | tee -a "$results"
    # the threads that used CPU while idle in the tray: name, CPU-ms in the window
    awk -F'\t' 'NR==FNR {a[$1]+=$2; next} {b[$1]+=$2} END {for (k in b) if (b[k]-a[k] > 0) printf "%s %.1f\n", k, (b[k]-a[k])/1e6}' \
      "$tmp/t0" "$tmp/t1" | sort -k2 -nr | head -12 | sed 's/^/    idle thread (CPU-ms): /'
    if [ "${NMT:-0}" = 1 ] && [[ $v == demo || $v == external ]]; then
      jcmd "$pid" VM.native_memory summary > "target/tray-$v-$r-nmt.txt" 2>&1 || true
      jcmd "$pid" Thread.print > "target/tray-$v-$r-threads.txt" 2>&1 || true
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
done
echo
echo "median of $n (CPU-s per minute, MiB):"
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for v in "${variants[@]}"; do
  line=$(printf '%-9s %5s' "$v" med)
  for c in $(seq 3 10); do
    line+=$(printf ' %9s' "$(awk -v v="$v" -v c="$c" '$1==v {print $c}' "$results" | median)")
  done
  echo "$line"
done
