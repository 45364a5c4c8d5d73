#!/usr/bin/env bash
# bench-coalescing.sh — the coalescing lab at full size, its figures and the
# ratios issue 5 names, measured in one run, on a temporary store (never
# yours). Brings build/ up to date first (an incremental build).
#
# With a GPU: cudaMemcpy, the copy kernels, the three transposes, the
# offset and stride sweeps against the model (200 timed launches per
# kernel). Without one: the CPU analog (4 x the last-level cache per array,
# 5 passes per point) and the model. Extra arguments go to `lab run`, e.g.
#   scripts/bench-coalescing.sh --set device=cpu
# WARPBENCH_BIN=path/to/warpbench runs another build instead of build/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
wb=${WARPBENCH_BIN:-build/warpbench}
if [ -z "${WARPBENCH_BIN:-}" ]; then # bring build/ up to date with the sources
  cmake --preset default >/dev/null
  cmake --build --preset default -j"$(nproc)" >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

llc_mib=$("$wb" --db "$tmp/s.db" --json lab list 2>/dev/null |
  jq -r '.labs[] | select(.name == "coalescing") | .params[] | select(.name == "cpu_mib") | .default' 2>/dev/null || true)
cpu_mib=$(( ${llc_mib:-64} * 2 ))
[ "$cpu_mib" -le 4096 ] || cpu_mib=4096

echo "== warpbench lab run coalescing (reps=200, cpu_mib=$cpu_mib, cpu_reps=5)"
"$wb" --db "$tmp/s.db" --json lab run coalescing --set reps=200 \
  --set cpu_mib="$cpu_mib" --set cpu_reps=5 "$@" >"$tmp/out.jsonl" 2>"$tmp/err.txt" || {
  cat "$tmp/err.txt" >&2
  echo "bench-coalescing: the lab run failed" >&2
  exit 1
}
grep -v '^coalescing: \[' "$tmp/err.txt" || true
summary=$(tail -n 1 "$tmp/out.jsonl")
echo
echo "== figures (elapsed $(jq -r '.elapsed_s | . * 10 | round / 10' <<<"$summary") s)"
jq -r '.figures | to_entries[] | "\(.key)\t\(.value)"' <<<"$summary" |
  awk -F '\t' '{ printf "  %-34s %s\n", $1, $2 }'
echo
echo "== ratios"
if [ "$(jq -r .figures.device <<<"$summary")" = gpu ]; then
  jq -r '.figures | [
    "device                        \(.gpu_name) (L2 \(.gpu_l2_bytes / 1048576 | floor) MiB, \(.gpu_bus_bits)-bit bus)",
    "copy / cudaMemcpy             \(.copy_frac_memcpy)   (goal >= 0.95; copy16: \(.copy16_frac_memcpy))",
    "copy / datasheet              \(.copy_frac_datasheet // "unknown device")   (goal >= 0.85)",
    "padded transpose / copy       \(.transpose_padded_frac_copy)   (goal >= 0.90)",
    "tiled, naive transpose / copy \(.transpose_tiled_frac_copy), \(.transpose_naive_frac_copy)",
    "offset curve vs model         worst \(.offset_model_maxdev * 1000 | round / 10)% at offset \(.offset_model_maxdev_at)   (goal <= 20%)",
    "stride curve vs model         worst \(.stride_model_maxdev * 1000 | round / 10)% at stride \(.stride_model_maxdev_at)   (goal <= 20%)",
    "stride 4 / copy               \(.stride4_frac_copy)   (model \(.model_frac_stride4))"
  ] | .[]' <<<"$summary"
else
  jq -r '.figures | [
    "no GPU: the CPU analog         \(.no_gpu // "device=cpu")",
    "copy loop / memcpy             \(.cpu_copy_frac_memcpy)",
    "blocked / naive transpose      \(.cpu_blocked_over_naive)",
    "stride 4 / copy                \(.cpu_stride4_frac_copy)   (model, 64-byte lines: \(.cpu_model_frac_stride4))",
    "stride 16 / copy               \(.cpu_stride16_frac_copy)   (model: \(.cpu_model_frac_stride16))",
    "offset curve vs model          worst \(.cpu_offset_model_maxdev * 1000 | round / 10)% at offset \(.cpu_offset_model_maxdev_at)",
    "stride curve vs model          worst \(.cpu_stride_model_maxdev * 1000 | round / 10)% at stride \(.cpu_stride_model_maxdev_at)",
    "model (GPU): sectors per warp  stride 1: \(.model_sectors_stride1), 2: \(.model_sectors_stride2), 8+: \(.model_sectors_stride8), offset 1: \(.model_sectors_offset1)",
    "model (GPU): stride-4 copy     \(.model_frac_stride4) of the copy; bank conflict 32x32: \(.model_bank_ways_32x32)-way, 32x33: \(.model_bank_ways_32x33)"
  ] | .[]' <<<"$summary"
fi
