#!/usr/bin/env bash
# Benchmark of the serving lab: Little's law from measurements. One rate
# sweep (loads 0.3 .. 0.9 of the measured capacity, DURATION seconds of
# Poisson arrivals each, default 5) prints per load: λ, throughput, p50 /
# p99, the time-averaged number in the system L against λ x W, and their
# difference; the goal is agreement within 10% at every load where the
# service kept up, on a quiet machine (other work on the CPU bends the
# service time mid-point and shows up here). Then the batching gain: the
# capacity at max_batch over the capacity at batch 1.
# WB=path/to/warpbench picks the binary (default: build/warpbench, brought
# up to date with the default preset first). Needs jq. About a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${WB:-}" ]]; then # bring build/ up to date with the sources
  cd "$root"
  cmake --preset default >/dev/null
  cmake --build --preset default -j"$(nproc)" >/dev/null
fi
WB=${WB:-$root/build/warpbench}
DURATION=${DURATION:-5}
LOADS=${LOADS:-0.3,0.5,0.7,0.8,0.9}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wb-bench-srv.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"

echo "serving benchmark on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))" >&2
"$WB" --db "$DB" --json lab run serving --set sweep=rate --set loads="$LOADS" \
  --set duration_s="$DURATION" "$@" 2>"$tmp/err" | tail -n 1 | jq -c .figures >"$tmp/f" ||
  { cat "$tmp/err" >&2; exit 1; }
F=$(cat "$tmp/f")
printf '\n%6s %9s %9s %8s %8s %9s %9s %7s  %s\n' load "λ/s" "thr/s" "p50 ms" "p99 ms" L "λW" "diff" "goal"
all=ok
IFS=, read -ra ls <<<"$LOADS"
for x in "${ls[@]}"; do
  k=$(awk -v x="$x" 'BEGIN { printf "load%.0f", 100 * x }')
  read -r rate thr p50 p99 l lw err stable < <(jq -r --arg k "$k" \
    '[.["rate_"+$k], .["throughput_"+$k], .["p50_ms_"+$k], .["p99_ms_"+$k], .["little_l_"+$k],
      .["little_lw_"+$k], .["little_err_"+$k], .["stable_"+$k]] | @tsv' <<<"$F")
  goal=$(awk -v e="$err" -v s="$stable" 'BEGIN { print (s < 1 ? "overloaded" : (e <= 10 ? "ok" : "MISSED")) }')
  [ "$goal" = MISSED ] && all=MISSED
  printf '%6s %9.0f %9.0f %8.2f %8.2f %9.3f %9.3f %6.1f%%  %s\n' "$x" "$rate" "$thr" "$p50" "$p99" \
    "$l" "$lw" "$err" "$goal"
done
printf '\nLittle within 10%% at every stable load: %s (worst %.1f%%)\n' "$all" \
  "$(jq -r '.little_err_max // 0' <<<"$F")"
printf 'capacity %.0f req/s at batch 1, %.0f at batch %s: %.2fx; t(B) = %.3f ms + %.3f ms x B\n' \
  "$(jq -r .capacity_b1 <<<"$F")" "$(jq -r .capacity_bmax <<<"$F")" "$(jq -r .max_batch <<<"$F")" \
  "$(jq -r .batch_gain <<<"$F")" "$(jq -r .t0_ms <<<"$F")" "$(jq -r .c_ms <<<"$F")"
printf 'device: %s %s\n' "$(jq -r .device <<<"$F")" "$(jq -r '.no_gpu // ""' <<<"$F")"
