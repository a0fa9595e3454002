#!/usr/bin/env bash
# Proof across hosts (docs/scale-out.md): builds a small cluster on this machine out of network
# namespaces — PostgreSQL, three `leasesync serve --db` instances (each its own host name) and the
# client devices — runs a seeded workload with kills and partitions against it (`leasesync cluster`),
# checks the server's audit and every device's database, and tears everything down again.
#
#   bash scale/cluster.sh [--rounds N] [--seed S] [--keep]
#
# Prints one summary line
#   instances=3 rounds=N kills=K partitions=P duplicates=0 lost=0 overlaps=0 fencing_violations=0 job_double_runs=0
# and exits 0 only when every violation counter is zero; 1 on a violation (the seed, the command
# that reproduces it and the evidence are printed, and the work directory is kept) or when the run
# could not be done; 2 for bad arguments or when not run as root.
#
# Needs root (network namespaces, veth, iptables, PostgreSQL as the postgres user). Installs
# iproute2, iptables, util-linux and postgresql with apt when missing, and builds target/leasesync.jar
# when it is missing. Uses 10.213.7.0/24 inside its namespaces only.

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
ROUNDS=200
SEED=""
KEEP=0

usage() {
    sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
        --rounds=*) ROUNDS=${1#*=}; shift ;;
        --seed) SEED=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
        --seed=*) SEED=${1#*=}; shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "cluster.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
if ! [[ "$ROUNDS" =~ ^[0-9]+$ ]] || [ "$ROUNDS" -lt 1 ] || [ "$ROUNDS" -gt 100000 ]; then
    echo "cluster.sh: --rounds must be a whole number from 1 to 100000, got '$ROUNDS'" >&2
    exit 2
fi
if [ -z "$SEED" ]; then
    SEED=$(( ($(od -An -N4 -tu4 /dev/urandom) % 1000000) + 1 ))
elif ! [[ "$SEED" =~ ^-?[0-9]+$ ]] || [ ${#SEED} -gt 18 ]; then
    echo "cluster.sh: --seed must be a whole number (at most 18 digits), got '$SEED'" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "cluster.sh: needs root: it creates network namespaces, veth links, a bridge and iptables rules," >&2
    echo "and runs PostgreSQL as the postgres user. Run it as root (e.g. sudo bash scale/cluster.sh)." >&2
    exit 2
fi

# ---- what it needs -------------------------------------------------------------------------------

missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v iptables >/dev/null || missing+=(iptables)
command -v unshare >/dev/null || missing+=(util-linux)
ls -d /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v java >/dev/null || missing+=(openjdk-17-jdk-headless)
if [ ! -f "$ROOT/target/leasesync.jar" ] && ! command -v mvn >/dev/null; then
    missing+=(maven)
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "cluster: installing ${missing[*]} with apt" >&2
    # (installing postgresql also creates Debian's default cluster; this script does not use it)
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null || {
            echo "cluster.sh: could not install ${missing[*]}" >&2
            exit 1
        }
fi
LSC_PG_BIN=${LSC_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
export LSC_PG_BIN

if [ ! -f "$ROOT/target/leasesync.jar" ]; then
    echo "cluster: building target/leasesync.jar" >&2
    (cd "$ROOT" && mvn -B -ntp -q package -DskipTests) || { echo "cluster.sh: the build failed" >&2; exit 1; }
fi

# shellcheck source=net.sh
source "$HERE/net.sh"

# ---- one run at a time; left-overs of a crashed run go first -------------------------------------

lock=/run/lock/leasesync-cluster.lock
[ -d /run/lock ] || lock=/tmp/leasesync-cluster.lock
exec 9>"$lock"
if ! flock -n 9; then
    echo "cluster.sh: another cluster.sh run is in progress (lock held)" >&2
    exit 1
fi
if [ -f "$LSC_STATE" ]; then
    old=$(cat "$LSC_STATE")
    echo "cluster: cleaning up after an earlier run that did not finish (${old:-?})" >&2
    if [ -n "$old" ] && [ -d "$old" ]; then
        pg_down "$old/pg"
    fi
    net_down
    case "$old" in
        /tmp/leasesync-cluster.*) rm -rf "$old" ;;
    esac
    rm -f "$LSC_STATE"
fi
net_down   # namespaces or a bridge of ours without a state file (e.g. a crash inside net_up)

WORK=$(mktemp -d /tmp/leasesync-cluster.XXXXXX)
chmod 711 "$WORK"   # PostgreSQL runs as postgres and must reach $WORK/pg
echo "$WORK" >"$LSC_STATE"
HARNESS_RAN=0

teardown() {
    local rc=$?
    trap - EXIT INT TERM HUP
    set +e
    pg_down "$WORK/pg"
    net_down
    if [ "$HARNESS_RAN" = 1 ] && [ "$rc" = 1 ] || [ "$KEEP" = 1 ]; then
        echo "cluster: work directory kept: $WORK (journals, logs, audit.jsonl in $WORK/run)" >&2
    else
        rm -rf "$WORK"
    fi
    rm -f "$LSC_STATE"
    exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- the cluster ---------------------------------------------------------------------------------

started=$(date +%s)
net_up || { echo "cluster.sh: could not build the network" >&2; exit 1; }
password=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
# (9>&-: no child keeps the lock; a run killed before its trap must not block the next one)
pg_up "$WORK/pg" "$password" 9>&- || { echo "cluster.sh: PostgreSQL did not start (see $WORK/pg)" >&2; exit 1; }
export LSC_ROOT_PID=$$   # net.sh runs its network changes in this shell's namespaces
export LEASESYNC_DB_USER=leasesync
export LEASESYNC_DB_PASSWORD="$password"

instances="$(lsc_addr s1):$LSC_SERVER_PORT,$(lsc_addr s2):$LSC_SERVER_PORT,$(lsc_addr s3):$LSC_SERVER_PORT"
echo "cluster: seed=$SEED rounds=$ROUNDS; reproduce with: bash scale/cluster.sh --rounds $ROUNDS --seed $SEED" >&2
HARNESS_RAN=1
# The harness runs in its own namespace; bounded in time like everything else.
timeout --foreground -k 15 $((900 + ROUNDS * 20)) \
    ip netns exec lsc-ctl java -XX:+UseSerialGC -Xmx512m -jar "$ROOT/target/leasesync.jar" cluster \
        --rounds "$ROUNDS" --seed "$SEED" --instances "$instances" \
        --db "jdbc:postgresql://$(lsc_addr pg):$LSC_PG_PORT/leasesync" \
        --net-script "$HERE/net.sh" --work-dir "$WORK/run" 9>&-
rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "cluster.sh: the harness did not finish within its time bound" >&2
    rc=1
fi
echo "cluster: took $(( $(date +%s) - started )) s" >&2
exit "$rc"
