#!/usr/bin/env bash
# The network and process plumbing of scale/cluster.sh: network namespaces on one bridge, the
# throwaway PostgreSQL, processes started inside a namespace with their own host name, and the
# network faults the cluster harness injects. Needs root.
#
# Source it for the functions, or run one function:  bash scale/net.sh FUNCTION ARGS...
# (the Java harness, `leasesync cluster`, calls the fault functions that way).
#
# Topology (one private /24, nothing routed to or from the host's own interfaces):
#
#   root namespace:  bridge lsc-br (no address) -- one veth per namespace (lsc-NAME-h)
#   lsc-ctl  10.213.7.2    the harness (leasesync cluster)
#   lsc-pg   10.213.7.10   PostgreSQL 15, port 5432
#   lsc-s1   10.213.7.11   server instance 1, port 8787   (host name ls-s1)
#   lsc-s2   10.213.7.12   server instance 2              (host name ls-s2)
#   lsc-s3   10.213.7.13   server instance 3              (host name ls-s3)
#   lsc-cli  10.213.7.20   every client process           (host name ls-clients)
#
# Every loop here is bounded; every function is safe to run twice.

LSC_SUBNET=10.213.7
LSC_BRIDGE=lsc-br
LSC_NAMES="ctl pg s1 s2 s3 cli"
LSC_TAG=leasesync-cluster
LSC_STATE=/run/leasesync-cluster.state
LSC_PG_BIN=${LSC_PG_BIN:-/usr/lib/postgresql/15/bin}
LSC_PG_PORT=5432
LSC_SERVER_PORT=8787

lsc_addr() {   # lsc_addr NAME -> its address
    case "$1" in
        ctl) echo "$LSC_SUBNET.2" ;;
        pg) echo "$LSC_SUBNET.10" ;;
        s1) echo "$LSC_SUBNET.11" ;;
        s2) echo "$LSC_SUBNET.12" ;;
        s3) echo "$LSC_SUBNET.13" ;;
        cli) echo "$LSC_SUBNET.20" ;;
        *) echo "net.sh: unknown namespace '$1'" >&2; return 2 ;;
    esac
}

lsc_log() {
    echo "cluster: $*" >&2
}

# ---- topology ------------------------------------------------------------------------------------

# Creates the bridge, the namespaces and their links. Fails if the subnet is in use on this host.
net_up() {
    if ip -o addr show | grep -q " $LSC_SUBNET\."; then
        echo "net.sh: $LSC_SUBNET.0/24 is already in use on this host; stop what uses it first" >&2
        return 1
    fi
    ip link add "$LSC_BRIDGE" type bridge || return 1
    ip link set "$LSC_BRIDGE" up || return 1
    local n
    for n in $LSC_NAMES; do
        _lsc_ns_up "$n" || return 1
    done
    # With br_netfilter loaded, bridged packets also pass the host's FORWARD chain: let ours through.
    if [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" = 1 ]; then
        iptables -I FORWARD -i "$LSC_BRIDGE" -o "$LSC_BRIDGE" -j ACCEPT -m comment --comment "$LSC_TAG" || return 1
    fi
}

_lsc_ns_up() {   # _lsc_ns_up NAME: namespace lsc-NAME with its address, linked to the bridge
    local n=$1 i addr
    addr=$(lsc_addr "$n") || return 1
    for i in $(seq 50); do   # the root end of a deleted namespace's veth goes away asynchronously
        ip link show "lsc-$n-h" >/dev/null 2>&1 || break
        ip link del "lsc-$n-h" 2>/dev/null
        sleep 0.1
    done
    ip netns add "lsc-$n" || return 1
    ip link add "lsc-$n-h" type veth peer name eth0 netns "lsc-$n" || return 1
    ip link set "lsc-$n-h" master "$LSC_BRIDGE" up || return 1
    # A fixed MAC per address: a host that comes back (host-back) is the same NIC to its neighbours,
    # whose ARP caches would otherwise point at a vanished one for up to a minute.
    ip -n "lsc-$n" link set eth0 address "02:13:07:00:00:$(printf '%02x' "${addr##*.}")" || return 1
    ip -n "lsc-$n" addr add "$addr/24" dev eth0 || return 1
    ip -n "lsc-$n" link set eth0 up || return 1
    ip -n "lsc-$n" link set lo up || return 1
}

# Removes everything net_up made, and every process still running in the namespaces.
net_down() {
    local n pids i
    for n in $LSC_NAMES; do
        if ip netns list | grep -qw "lsc-$n"; then
            for i in 1 2 3 4 5; do   # a process may fork while we look: a few passes
                pids=$(ip netns pids "lsc-$n" 2>/dev/null)
                [ -z "$pids" ] && break
                # shellcheck disable=SC2086
                kill -9 $pids 2>/dev/null
                sleep 0.2
            done
            ip netns del "lsc-$n" 2>/dev/null
        fi
        ip link del "lsc-$n-h" 2>/dev/null
    done
    ip link del "$LSC_BRIDGE" 2>/dev/null
    for i in 1 2 3 4 5; do
        iptables -D FORWARD -i "$LSC_BRIDGE" -o "$LSC_BRIDGE" -j ACCEPT -m comment --comment "$LSC_TAG" 2>/dev/null || break
    done
    return 0
}

# Runs a command inside namespace NAME with its own UTS namespace and host name HOST.
# exec all the way down: the command keeps this shell's process id (so kill -9 reaches it).
run_in() {   # run_in NAME HOST COMMAND...
    local ns=$1 host=$2
    shift 2
    exec ip netns exec "lsc-$ns" unshare --uts -- env HOSTNAME="$host" \
        sh -c 'hostname "$HOSTNAME" && exec "$@"' sh "$@"
}

run_instance() {   # run_instance K COMMAND...: in instance K's namespace, host name ls-sK
    local k=$1
    shift
    run_in "s$k" "ls-s$k" "$@"
}

run_clients() {   # run_clients COMMAND...: in the clients' namespace, host name ls-clients
    run_in cli ls-clients "$@"
}

# ---- PostgreSQL ------------------------------------------------------------------------------------

# pg_up DIR PASSWORD: a throwaway cluster in DIR/data (DIR must be traversable by postgres), role and
# database "leasesync" with PASSWORD, listening only on the pg namespace's address.
pg_up() {
    local dir=$1 password=$2
    mkdir -p "$dir" && chown postgres "$dir" && chmod 700 "$dir" || return 1
    runuser -u postgres -- "$LSC_PG_BIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
    # Trust only on the local socket; the network needs the password.
    cat >"$dir/data/pg_hba.conf" <<EOF
local all postgres trust
host  all all $LSC_SUBNET.0/24 scram-sha-256
EOF
    ip netns exec lsc-pg runuser -u postgres -- "$LSC_PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
        -o "-c listen_addresses=$(lsc_addr pg) -p $LSC_PG_PORT -k $dir -c max_connections=100" start >/dev/null \
        || { tail -20 "$dir/postgres.log" >&2; return 1; }
    runuser -u postgres -- "$LSC_PG_BIN/psql" -h "$dir" -p "$LSC_PG_PORT" -U postgres -v ON_ERROR_STOP=1 -q \
        -v pw="$password" <<'EOF' || return 1
CREATE ROLE leasesync LOGIN PASSWORD :'pw';
CREATE DATABASE leasesync OWNER leasesync;
EOF
}

# pg_down DIR: stops the cluster at once (a throwaway; nothing to flush).
pg_down() {
    local dir=$1
    if [ -f "$dir/data/postmaster.pid" ]; then
        runuser -u postgres -- "$LSC_PG_BIN/pg_ctl" -D "$dir/data" -m immediate -t 20 stop >/dev/null 2>&1
    fi
    return 0
}

# ---- faults (called by the harness: bash net.sh FUNCTION ARGS) ----------------------------------------

_lsc_rule() {   # _lsc_rule NS -A|-D CHAIN MATCH...: one tagged iptables rule in a namespace
    local ns=$1 op=$2
    shift 2
    ip netns exec "lsc-$ns" iptables -w 5 "$op" "$@" -m comment --comment "$LSC_TAG" 2>/dev/null
}

_lsc_both() {   # _lsc_both NS -A|-D PEER_ADDR: drop everything to and from PEER_ADDR
    _lsc_rule "$1" "$2" OUTPUT -d "$3" -j DROP
    local rc=$?
    _lsc_rule "$1" "$2" INPUT -s "$3" -j DROP || rc=$?
    return $rc
}

# db-cut K on|off: instance K and PostgreSQL cannot reach each other (iptables DROP in instance K).
fault_db_cut() {
    local op=-A
    [ "$2" = off ] && op=-D
    _lsc_both "s$1" "$op" "$(lsc_addr pg)"
}

# client-cut K on|off: the client processes and instance K cannot reach each other (DROP in the
# clients' namespace; the harness still reaches K).
fault_client_cut() {
    local op=-A
    [ "$2" = off ] && op=-D
    _lsc_both cli "$op" "$(lsc_addr "s$1")"
}

# link K down|up: instance K's only link goes down: nobody reaches it, it reaches nobody.
fault_link() {
    ip -n "lsc-s$1" link set eth0 "$2"
}

# db-link down|up: PostgreSQL's link goes down: no instance reaches the database.
fault_db_link() {
    ip -n lsc-pg link set eth0 "$1"
}

# loss K PERCENT|off: random loss of PERCENT % of instance K's packets, both ways. Uses netem when
# the kernel has it; else iptables' statistic match in a chain of its own (what ran here: this
# kernel has no sch_netem). Prints the mechanism used.
fault_loss() {
    local k=$1 pct=$2 ns="lsc-s$1"
    if [ "$pct" = off ]; then
        ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null
        tc qdisc del dev "lsc-s$k-h" root 2>/dev/null
        ip netns exec "$ns" iptables -w 5 -D INPUT -i eth0 -j lsc-loss 2>/dev/null
        ip netns exec "$ns" iptables -w 5 -D OUTPUT -o eth0 -j lsc-loss 2>/dev/null
        ip netns exec "$ns" iptables -w 5 -F lsc-loss 2>/dev/null
        ip netns exec "$ns" iptables -w 5 -X lsc-loss 2>/dev/null
        return 0
    fi
    if ip netns exec "$ns" tc qdisc add dev eth0 root netem loss "$pct%" 2>/dev/null; then
        if tc qdisc add dev "lsc-s$k-h" root netem loss "$pct%" 2>/dev/null; then
            echo netem
            return 0
        fi
        ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null
    fi
    local p
    p=$(awk -v pct="$pct" 'BEGIN { printf "%.4f", pct / 100 }')
    ip netns exec "$ns" iptables -w 5 -N lsc-loss || return 1
    ip netns exec "$ns" iptables -w 5 -A lsc-loss -m statistic --mode random --probability "$p" -j DROP || return 1
    ip netns exec "$ns" iptables -w 5 -I INPUT -i eth0 -j lsc-loss || return 1
    ip netns exec "$ns" iptables -w 5 -I OUTPUT -o eth0 -j lsc-loss || return 1
    echo iptables
}

# host-lost K: instance K's host vanishes as if it lost power: its link goes down first, then every
# process in it is killed and the namespace deleted, so no connection of it is ever closed (no FIN
# reaches PostgreSQL or the clients).
fault_host_lost() {
    local ns="lsc-s$1" pids i
    ip -n "$ns" link set eth0 down || return 1
    for i in 1 2 3 4 5; do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -z "$pids" ] && break
        # shellcheck disable=SC2086
        kill -9 $pids 2>/dev/null
        sleep 0.2
    done
    ip netns del "$ns" || return 1
    ip link del "lsc-s$1-h" 2>/dev/null
    return 0
}

_lsc_ns_ok() {   # _lsc_ns_ok NAME: the namespace is there with its address
    ip -n "lsc-$1" -o addr show dev eth0 2>/dev/null | grep -q " $(lsc_addr "$1")/"
}

_lsc_ns_renew() {   # _lsc_ns_renew NAME: a fresh namespace unless a complete one is there
    _lsc_ns_ok "$1" && return 0
    ip netns del "lsc-$1" 2>/dev/null
    _lsc_ns_up "$1"
}

# host-back K: a fresh host for instance K (a new namespace with the same address).
fault_host_back() {
    _lsc_ns_renew "s$1"
}

# heal-all: every namespace there (a lost host back), every link up, every rule and qdisc gone.
fault_heal_all() {
    local n
    for n in $LSC_NAMES; do
        _lsc_ns_renew "$n"
        ip -n "lsc-$n" link set eth0 up 2>/dev/null
        ip netns exec "lsc-$n" tc qdisc del dev eth0 root 2>/dev/null
        tc qdisc del dev "lsc-$n-h" root 2>/dev/null
        ip netns exec "lsc-$n" iptables -w 5 -F INPUT 2>/dev/null
        ip netns exec "lsc-$n" iptables -w 5 -F OUTPUT 2>/dev/null
        ip netns exec "lsc-$n" iptables -w 5 -F lsc-loss 2>/dev/null
        ip netns exec "lsc-$n" iptables -w 5 -X lsc-loss 2>/dev/null
    done
    return 0
}

# ---- command line --------------------------------------------------------------------------------

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    cmd=${1:-}
    [ $# -gt 0 ] && shift
    # The harness calls this from inside its own namespace (lsc-ctl, where `ip netns exec` also gave it
    # a mount namespace of its own): the bridge, the veths' root ends and /run/netns live where
    # cluster.sh runs (LSC_ROOT_PID), so everything but starting a process runs there.
    case "$cmd" in
        run-*) ;;
        *)
            if [ -n "${LSC_ROOT_PID:-}" ] \
                && [ "$(readlink /proc/self/ns/net)" != "$(readlink "/proc/$LSC_ROOT_PID/ns/net")" ]; then
                exec nsenter --target "$LSC_ROOT_PID" --net --mount -- bash "$0" "$cmd" "$@"
            fi
            ;;
    esac
    case "$cmd" in
        run-in) run_in "$@" ;;
        run-instance) run_instance "$@" ;;
        run-clients) run_clients "$@" ;;
        db-cut) fault_db_cut "$@" ;;
        client-cut) fault_client_cut "$@" ;;
        link) fault_link "$@" ;;
        db-link) fault_db_link "$@" ;;
        loss) fault_loss "$@" ;;
        host-lost) fault_host_lost "$@" ;;
        host-back) fault_host_back "$@" ;;
        heal-all) fault_heal_all ;;
        up) net_up ;;
        down) net_down ;;
        *) echo "usage: net.sh run-in|run-instance|run-clients|db-cut|client-cut|link|db-link|loss|host-lost|host-back|heal-all|up|down ARGS" >&2; exit 2 ;;
    esac
fi
