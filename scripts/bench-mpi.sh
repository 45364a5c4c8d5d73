#!/usr/bin/env bash
# Benchmark of the distributed labs over Open MPI against Open MPI's own
# operations, on the same ranks and message sizes, in one run:
#   1. our ring all-reduce's bus bandwidth (nccl-tests: algbw x 2(p-1)/p)
#      against MPI_Allreduce's, at 64 MiB and above (goal >= 0.8);
#   2. our tree all-reduce against our ring at 4 KiB and at 64 MiB (the
#      latency-bound and the bandwidth-bound ends of the sweep);
#   3. the parameter-server lab's push/pull throughput (pushpull_mb_s: a
#      pull reply of 1 M floats, from the shard's send to the worker's last
#      byte) against an MPI ping-pong of the same message size (goal >= 0.8),
#      each the best of three runs.
# All ranks on this machine (mpirun --oversubscribe): WORKERS (default 4)
# all-reduce ranks plus rank 0, the master. WB=path/to/warpbench picks the
# binary (default: build/warpbench, brought up to date first). Needs jq and
# Open MPI (mpirun). Takes a minute or two.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${WB:-}" ]]; then
  cd "$root"
  cmake --preset default >/dev/null
  cmake --build --preset default -j"$(nproc)" >/dev/null
fi
WB=${WB:-$root/build/warpbench}
W=${WORKERS:-4}
command -v mpirun >/dev/null || { echo "bench-mpi: needs Open MPI's mpirun" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wb-bench-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=(mpirun --oversubscribe --bind-to none)

# mpilab NP ARGS...: a lab run under mpirun; prints the summary line
mpilab() {
  local np=$1; shift
  "${MPI[@]}" -np "$np" "$WB" --db "$DB" --json lab run "$@" --set transport=mpi \
    2>"$tmp/err" | tail -n 1 || { cat "$tmp/err" >&2; exit 1; }
}
fig() { jq -r ".figures.$2" <<<"$1"; }
# sample RUN SERIES BYTES: the value of a series at one message size
sample() {
  "$WB" --db "$DB" --json lab show "$1" --series "$2" | jq -r ".samples[] | select(.step == $3) | .value"
}
rows=()
row() { rows+=("$(printf '%-46s %12s %12s %7s  %-8s %s' "$1" "$2" "$3" "$4" "$5" "$6")"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
atleast() { awk -v r="$1" -v g="$2" 'BEGIN { print (r >= g ? "ok" : "MISSED") }'; }

echo "MPI benchmark: $W ranks + rank 0 on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(mpirun --version | head -1)" >&2

# 1 and 2: the sweep, 4 KiB .. 256 MiB
ar=$(mpilab $((W + 1)) allreduce --set min_bytes=4096 --set max_bytes=268435456 --set time_ms=300)
run=$(jq -r .run <<<"$ar")
for b in 67108864 268435456; do
  ours=$(sample "$run" ring_busbw $b)
  mpi=$(sample "$run" mpi_busbw $b)
  r=$(ratio "$ours" "$mpi")
  row "ring busbw vs MPI_Allreduce, $((b >> 20)) MiB, p=$W" "$(printf '%.2f GB/s' "$ours")" \
    "$(printf '%.2f GB/s' "$mpi")" "$r" ">= 0.8" "$(atleast "$r" 0.8)"
done
for b in 4096 67108864; do
  tr=$(sample "$run" tree_ms $b)
  rg=$(sample "$run" ring_ms $b)
  name=$([[ $b -eq 4096 ]] && echo "4 KiB" || echo "64 MiB")
  row "tree vs ring time, $name, p=$W" "$(printf '%.3f ms' "$tr")" "$(printf '%.3f ms' "$rg")" \
    "$(ratio "$tr" "$rg")" "(measured)" "tree $([[ $(awk -v a="$tr" -v b="$rg" 'BEGIN{print (a<b)}') == 1 ]] && echo faster || echo slower)"
done

# 3: push/pull of 1 M floats against an MPI ping-pong of that size, each
# the best of three runs (this machine's other work shows in single runs)
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }
pb=$((1000000 * 4 + 32)) # a pull reply's payload: 32 bytes of header, then the floats
pp=0 mpp=0 ours_p2p=0
for _ in 1 2 3; do
  ps=$(mpilab 3 paramserver --set mode=sync --set servers=1 --set params=1000000 --set link=off \
    --set compute_ms=0 --set sparsity=0.9999 --set batch=16 --set steps=100 --set checkpoint_every=0)
  pp=$(max "$pp" "$(fig "$ps" pushpull_mb_s)")
  p2=$(mpilab 3 allreduce --set min_bytes=$pb --set max_bytes=$pb --set time_ms=1000)
  p2run=$(jq -r .run <<<"$p2")
  mpp=$(max "$mpp" "$(awk -v g="$(sample "$p2run" mpi_p2p_gbs $pb)" 'BEGIN { print g * 1000 }')")
  ours_p2p=$(max "$ours_p2p" "$(awk -v g="$(sample "$p2run" p2p_gbs $pb)" 'BEGIN { print g * 1000 }')")
done
r3=$(ratio "$pp" "$mpp")
row "push/pull (4 MB pull replies) vs MPI ping-pong" "$(printf '%.0f MB/s' "$pp")" \
  "$(printf '%.0f MB/s' "$mpp")" "$r3" ">= 0.8" "$(atleast "$r3" 0.8)"
r4=$(ratio "$ours_p2p" "$mpp")
row "our point-to-point vs MPI ping-pong, 4 MB" "$(printf '%.0f MB/s' "$ours_p2p")" \
  "$(printf '%.0f MB/s' "$mpp")" "$r4" "(same)" ""

printf '%-46s %12s %12s %7s  %-8s %s\n' "measurement" "ours" "Open MPI" "ratio" "goal" ""
printf '%s\n' "${rows[@]}"
echo
echo "model (fitted from the point-to-point): alpha $(fig "$ar" alpha_us | xargs printf '%.1f') us," \
  "B $(fig "$ar" bandwidth_gbs | xargs printf '%.2f') GB/s; tree beats ring below about" \
  "$(fig "$ar" model_crossover_bytes | xargs printf '%.0f') bytes (measured: up to" \
  "$(fig "$ar" tree_wins_up_to_bytes | xargs printf '%.0f'))"
