#!/usr/bin/env bash
# Benchmark of the paramserver lab, side by side in one run:
#   1. raw socketpair throughput (bench paramserver: 4 MiB writes, one way)
#      vs the lab's pushpull_mb_s, link off (goal >= 0.6 of raw): like with
#      like, one way, 4 MB messages, each timed from the shard's send to the
#      worker's last byte (pull replies; push sends return at the socket
#      buffer and are not timed);
#   2. ring all-reduce bus bandwidth vs the transport's point-to-point rate
#      (goal >= 0.6), link off and on a 1 Gbps emulated link;
#   3. async vs sync updates per second with one 2x straggler (goal >= 1.5x);
#   4. the course's worked example (5 workers, 1 M params, 1 Gbps, 50 ms of
#      compute, sync) against its 64/114 = 56 % (goal within 10 % relative);
#   5. the emulated link itself (build/tests/test_lab_ps_net bench): 8 MiB at
#      100 Mbps on one connection and on two sharing a link, against the
#      configured rate (goal within 10 %), and the delivery delay against a
#      60 ms latency. (The unit test checks only that the link is never
#      faster than configured; how close it comes is this figure.)
# WB=path/to/warpbench picks the binary (default: build/warpbench, brought
# up to date with the default preset first). Needs jq. Takes about a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${WB:-}" ]]; then # bring build/ up to date with the sources
  cd "$root"
  cmake --preset default >/dev/null
  cmake --build --preset default -j"$(nproc)" >/dev/null
fi
WB=${WB:-$root/build/warpbench}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wb-bench-ps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"

# lab ARGS...: runs the lab, prints the summary line's figures as JSON.
lab() {
  "$WB" --db "$DB" --json lab run paramserver "$@" 2>"$tmp/err" | tail -n 1 | jq -c .figures ||
    { cat "$tmp/err" >&2; exit 1; }
}
fig() { jq -r ".$2" <<<"$1"; }
rows=()
# row NAME OURS REF RATIO GOAL_TEXT OK
row() { rows+=("$(printf '%-44s %12s %12s %7s  %-12s %s' "$1" "$2" "$3" "$4" "$5" "$6")"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
atleast() { awk -v r="$1" -v g="$2" 'BEGIN { print (r >= g ? "ok" : "MISSED") }'; }

echo "paramserver benchmark on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))" >&2

# 1. raw socketpair vs push/pull
raw=$("$WB" --json bench paramserver | jq -r .raw_socketpair_mb_s)
ppm=0
for _ in 1 2 3; do # best of three, as the raw figure
  pp=$(lab --set mode=sync --set workers=1 --set servers=1 --set params=1000000 --set link=off \
    --set compute_ms=0 --set sparsity=0.9999 --set batch=16 --set steps=200 --set checkpoint_every=0)
  ppm=$(awk -v a="$ppm" -v b="$(fig "$pp" pushpull_mb_s)" 'BEGIN { print (b > a ? b : a) }')
done
r1=$(ratio "$ppm" "$raw")
row "push/pull (4 MB replies) vs raw socketpair" "$(printf '%.0f MB/s' "$ppm")" \
  "$(printf '%.0f MB/s' "$raw")" "$r1" ">= 0.6" "$(atleast "$r1" 0.6)"

# 2. ring all-reduce bus bandwidth vs point-to-point: on the emulated link
# (each rank's link the bottleneck, as in a cluster), and with the link off
# (memory copies bound: every rank sends and receives at once, more ranks
# than this machine may have cores)
ar=$(lab --set mode=allreduce --set workers=4 --set params=1000000 --set link=1Gbps \
  --set compute_ms=0 --set sparsity=0.9999 --set batch=16 --set steps=20)
bb=$(awk -v g="$(fig "$ar" busbw_gbs)" 'BEGIN { print g * 1000 }')
r2=$(ratio "$bb" 125)
row "ring busbw, 4 workers, 1 Gbps link, vs link" "$(printf '%.1f MB/s' "$bb")" "125.0 MB/s" \
  "$r2" ">= 0.6" "$(atleast "$r2" 0.6)"
for w in 2 4; do
  ar=$(lab --set mode=allreduce --set workers=$w --set params=1000000 --set link=off \
    --set compute_ms=0 --set sparsity=0.9999 --set batch=16 --set steps=100)
  bb=$(awk -v g="$(fig "$ar" busbw_gbs)" 'BEGIN { print g * 1000 }')
  r2=$(ratio "$bb" "$ppm")
  row "ring busbw, $w workers, link off, vs push/pull" "$(printf '%.0f MB/s' "$bb")" \
    "$(printf '%.0f MB/s' "$ppm")" "$r2" "(CPU-bound)" "$(nproc) cores for $w ranks + copies"
done

# 3. async vs sync with one 2x straggler
common=(--set workers=4 --set params=100000 --set link=10Gbps --set compute_ms=20
  --set straggler=2:2 --set steps=40)
sy=$(lab --set mode=sync "${common[@]}")
as=$(lab --set mode=async "${common[@]}")
r3=$(ratio "$(fig "$as" updates_per_s)" "$(fig "$sy" updates_per_s)")
row "async vs sync updates/s, 4 workers, one 2x" "$(printf '%.1f /s' "$(fig "$as" updates_per_s)")" \
  "$(printf '%.1f /s' "$(fig "$sy" updates_per_s)")" "$r3" ">= 1.5" "$(atleast "$r3" 1.5)"

# 4. the course's worked example
ex=$(lab --set mode=sync --set workers=5 --set params=1000000 --set link=1Gbps --set compute_ms=50 \
  --set sparsity=0.9999 --set steps=30)
cf=$(fig "$ex" comm_fraction)
pc=$(fig "$ex" predicted_comm_fraction)
r4=$(ratio "$cf" "$pc")
ok4=$(awk -v r="$r4" 'BEGIN { print (r >= 0.9 && r <= 1.1 ? "ok" : "MISSED") }')
row "56 % example: comm fraction vs 64/114" "$(printf '%.1f %%' "$(awk -v c="$cf" 'BEGIN{print 100*c}')")" \
  "$(printf '%.1f %%' "$(awk -v c="$pc" 'BEGIN{print 100*c}')")" "$r4" "0.9 .. 1.1" "$ok4"

# 5. the emulated link's own rate (the unit test's sender and receiver)
net="${WB_TESTS:-$root/build/tests}/test_lab_ps_net"
if [[ -x "$net" ]]; then
  "$net" bench >"$tmp/net" 2>&1 || { cat "$tmp/net" >&2; exit 1; }
  for what in "link rate" "shared link rate"; do
    line=$(grep -m1 "^$what:" "$tmp/net")
    mbs=$(sed -nE 's/.* = ([0-9.]+) MB\/s,.*/\1/p' <<<"$line")
    r5=$(sed -nE 's/.*\(ratio ([0-9.]+)\).*/\1/p' <<<"$line")
    ok5=$(awk -v r="$r5" 'BEGIN { print (r >= 0.9 && r <= 1.1 ? "ok" : "MISSED") }')
    row "emulated $what, 100 Mbps, 8 MiB" "$(printf '%.2f MB/s' "$mbs")" "12.50 MB/s" "$r5" \
      "0.9 .. 1.1" "$ok5"
  done
  lat=$(grep -m1 '^link latency:' "$tmp/net" | sed 's/^link latency: //')
else
  row "emulated link rate" "-" "-" "-" "" "no $net (build the tests)"
fi

printf '%-44s %12s %12s %7s  %-12s %s\n' "measurement" "ours" "reference" "ratio" "goal" ""
printf '%s\n' "${rows[@]}"
echo
printf '56 %% example: step %.1f ms = compute %.1f + communication %.1f ms (course: 50 + 64 = 114)\n' \
  "$(fig "$ex" step_ms)" "$(fig "$ex" compute_ms_mean)" "$(fig "$ex" comm_ms)"
printf 'sync with the straggler: %.1f ms per step, waiting %.1f ms; async max staleness %s steps\n' \
  "$(fig "$sy" step_ms)" "$(fig "$sy" wait_ms_mean)" "$(fig "$as" max_staleness)"
if [[ -n "${lat:-}" ]]; then echo "emulated link latency: $lat"; fi
