#!/usr/bin/env bash
# netlab.sh — a small virtual cluster on this machine, with real (kernel)
# network links, to run a distributed lab across it through Open MPI.
#
#   sudo scripts/netlab.sh [options] -- WARPBENCH-ARGS...
#   sudo scripts/netlab.sh -n 3 --rate 1gbit -- --db lab.db lab run paramserver \
#        --set mode=sync --set params=1000000 --set compute_ms=50 --set link=off
#
# It makes N network namespaces ("hosts" wbnl<id>-1 .. -N), each joined by a
# veth pair to one bridge, with an address it assigns (10.213.S.11, .12, ...
# on a /24 of its own), shapes the links with tc (tbf for --rate, netem for
# --delay and --loss) on both ends of each shaped host's veth, writes an Open
# MPI hostfile, and runs
#   mpirun --hostfile H --mca plm_rsh_agent "ip netns exec"-like-agent ...
#          WARPBENCH lab run ... --set transport=mpi
# so that Open MPI starts its daemon in each namespace (its own hostname
# there) and every rank talks over the shaped links (TCP on that /24 only).
# Everything it made is removed on exit, on Ctrl-C and on SIGTERM. It touches
# no other interface or address: only the bridge, veths and namespaces it
# created (all named wbnl<id>...).
#
# Options:
#   -n N            hosts (namespaces), default 3
#   --slots LIST    ranks per host, comma-separated (default: 2 on host 1 — the
#                   master and a server shard — and 1 on each other host)
#   --rate RATE     tc rate of each shaped link, e.g. 1gbit, 100mbit (default
#                   1gbit; "off": no bandwidth limit)
#   --delay MS      one-way delay added by netem on each shaped link (default 0)
#   --loss PCT      packet loss by netem on each shaped link (default 0)
#   --shape WHICH   "workers": every host but the first (the course's model:
#                   each worker has its own link, the server does not hold it
#                   back; default), or "all"
#   --wb PATH       the warpbench binary (default: build/warpbench)
#   --keep          leave the cluster up after the run (prints how to remove it)
# Needs root, iproute2 (ip, tc), util-linux (unshare) and Open MPI (mpirun).
# Exit status: the lab run's, or 2 when the cluster could not be made (the
# reason on stderr).
set -uo pipefail

n=3
slots=""
rate=1gbit
delay=0
loss=0
shape=workers
root=$(cd "$(dirname "$0")/.." && pwd)
wb=$root/build/warpbench
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) n=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --shape) shape=$2; shift 2 ;;
    --wb) wb=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "netlab: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "netlab: $*" >&2; exit 2; }
[[ $# -gt 0 ]] || die "give the warpbench arguments after --, e.g. -- lab run paramserver ..."
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, veth, tc)"
for tool in ip tc unshare mpirun; do
  command -v "$tool" >/dev/null 2>&1 || die "needs $tool (iproute2, util-linux, openmpi-bin)"
done
[[ -x "$wb" ]] || die "no warpbench binary at $wb (build it, or give --wb)"
[[ "$n" =~ ^[0-9]+$ && "$n" -ge 2 && "$n" -le 32 ]] || die "-n: 2 to 32 hosts"
[[ "$shape" == workers || "$shape" == all ]] || die "--shape: workers or all"
if [[ -z "$slots" ]]; then
  slots=2
  for ((i = 2; i <= n; i++)); do slots+=",1"; done
fi
IFS=, read -r -a slot_of <<<"$slots"
[[ ${#slot_of[@]} -eq $n ]] || die "--slots names ${#slot_of[@]} hosts, -n is $n"
total=0
for s in "${slot_of[@]}"; do
  [[ "$s" =~ ^[0-9]+$ && "$s" -ge 1 ]] || die "--slots: whole numbers of ranks, not '$s'"
  total=$((total + s))
done

id=$(( $$ % 100000 ))
pre="wbnl$id"              # every name this script makes starts so
# a /24 no interface of this machine is on already (a cluster of another
# run, or one left up with --keep, keeps its own)
subnet=$(( 20 + $$ % 200 ))
for _ in $(seq 1 200); do
  ip -o -4 addr show | grep -q " 10\.213\.$subnet\." || break
  subnet=$(( 20 + (subnet - 19) % 200 ))
done
net="10.213.$subnet"
work=$(mktemp -d "${TMPDIR:-/tmp}/netlab.XXXXXX")
made_bridge=0
made=()
mpirun_pid=""

cleanup() {
  local rc=$?
  trap - EXIT
  trap '' INT TERM # a second Ctrl-C does not stop the removal halfway
  if [[ -n "$mpirun_pid" ]] && kill -0 "$mpirun_pid" 2>/dev/null; then
    kill -TERM "$mpirun_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$mpirun_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$mpirun_pid" 2>/dev/null
  fi
  if [[ $keep -eq 1 ]]; then
    echo "netlab: left up: namespaces ${made[*]:-none}, bridge ${pre}b; remove with:" >&2
    echo "  for ns in ${made[*]:-}; do ip netns pids \$ns | xargs -r kill -9; ip netns del \$ns; done; ip link del ${pre}b" >&2
  else
    local left=()
    for ns in "${made[@]}"; do
      # a process still in it (an "ip netns exec" mount namespace among
      # them) makes the delete fail for a moment: a second at most
      for _ in $(seq 1 10); do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
        ip netns del "$ns" 2>/dev/null && break # its veth end goes with it, and the pair
        sleep 0.1
      done
      [[ -e "/run/netns/$ns" ]] && left+=("$ns")
    done
    if [[ $made_bridge -eq 1 ]] && ! ip link del "${pre}b" 2>/dev/null; then
      left+=("bridge ${pre}b")
    fi
    [[ ${#left[@]} -eq 0 ]] ||
      echo "netlab: could not remove ${left[*]} (ip netns del / ip link del by hand)" >&2
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# shape DEV [NS]: the tc queue of one end of a link.
shape_dev() {
  local dev=$1 ns=${2:-} tcx=(tc)
  [[ -n "$ns" ]] && tcx=(ip netns exec "$ns" tc)
  local parent=(root)
  if [[ "$delay" != 0 || "$loss" != 0 ]]; then
    "${tcx[@]}" qdisc add dev "$dev" root handle 1: netem delay "${delay}ms" loss "${loss}%" ||
      return 1
    parent=(parent 1:)
  fi
  if [[ "$rate" != off ]]; then
    # burst: 64 KiB at least (a segment the kernel hands over whole), about
    # 1 ms of the rate above that
    local bps
    bps=$(awk -v r="$rate" 'BEGIN { m = 1; if (r ~ /[kK]/) m = 1e3; if (r ~ /[mM]/) m = 1e6;
          if (r ~ /[gG]/) m = 1e9; sub(/[a-zA-Z]+$/, "", r); print r * m }')
    local burst=$(awk -v b="$bps" 'BEGIN { v = b / 8 / 1000; if (v < 65536) v = 65536; printf "%d", v }')
    "${tcx[@]}" qdisc add dev "$dev" "${parent[@]}" handle 2: tbf rate "$rate" burst "$burst" \
      latency 100ms || return 1
  fi
}

ip link add "${pre}b" type bridge || die "cannot create a bridge (is this a container without CAP_NET_ADMIN?)"
made_bridge=1
ip addr add "$net.1/24" dev "${pre}b" || die "cannot address the bridge"
ip link set "${pre}b" up || die "cannot bring the bridge up"
hostfile="$work/hostfile"
: >"$hostfile"
for ((i = 1; i <= n; i++)); do
  ns="${pre}-$i"
  ip netns add "$ns" || die "cannot create network namespace $ns"
  made+=("$ns")
  ip link add "${pre}h$i" type veth peer name "${pre}p$i" || die "cannot create a veth pair"
  ip link set "${pre}p$i" netns "$ns" || die "cannot move a veth into $ns"
  ip -n "$ns" link set "${pre}p$i" name eth0 || die "cannot rename the veth in $ns"
  ip -n "$ns" addr add "$net.$((10 + i))/24" dev eth0 || die "cannot address $ns"
  ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up || die "cannot bring $ns up"
  # a step's pull comes after its compute: TCP must not start slow again
  # after that idle time (this namespace's setting only)
  ip netns exec "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 2>/dev/null
  ip link set "${pre}h$i" master "${pre}b" && ip link set "${pre}h$i" up ||
    die "cannot attach $ns to the bridge"
  if [[ "$shape" == all || $i -gt 1 ]] && [[ "$rate" != off || "$delay" != 0 || "$loss" != 0 ]]; then
    shape_dev eth0 "$ns" || die "tc could not shape $ns's link"
    shape_dev "${pre}h$i" || die "tc could not shape the bridge side of $ns's link"
  fi
  echo "$ns slots=${slot_of[$((i - 1))]}" >>"$hostfile"
done

# Open MPI's launcher reaches a "host" as ssh would: the agent runs the
# daemon's command line in that namespace, with the namespace's name as its
# hostname (a UTS namespace of its own).
agent="$work/agent"
cat >"$agent" <<'EOF'
#!/bin/sh
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
EOF
chmod +x "$agent"

shaped="hosts 2..$n"
[[ "$shape" == all ]] && shaped="every host"
echo "netlab: $n hosts on $net.0/24 (${made[*]}), $total ranks; $shaped shaped: rate $rate, delay ${delay} ms, loss ${loss} %" >&2

export OMPI_MCA_plm_rsh_agent="$agent"
mpirun --allow-run-as-root --hostfile "$hostfile" -np "$total" --bind-to none \
  --mca oob_tcp_if_include "$net.0/24" --mca btl_tcp_if_include "$net.0/24" \
  --mca plm_rsh_no_tree_spawn 1 --mca odls_base_sigkill_timeout 10 \
  "$wb" "$@" --set transport=mpi &
mpirun_pid=$!
wait "$mpirun_pid"
rc=$?
mpirun_pid=""
exit "$rc"
