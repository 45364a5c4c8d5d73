#!/usr/bin/env bash
# Benchmark of the quantize lab, in one run:
#   1. the formula check: the largest |measured - expected| over b = 4..12
#      for the full-scale uniform signal (expected 6.02 b, goal < 0.2 dB) and
#      the sine (expected 6.02 b + 1.76; it is reached only from ~7 bits);
#      how far the max-scaled Gaussian misses at 8 bits;
#   2. INT8 against FP32 matrix multiply at n = GEMM_N (default 1024) on this
#      CPU: ours (single-threaded, the fastest path this CPU has) and
#      oneDNN's at one thread and on every core, in G ops/s and as ratios;
#   3. with a GPU, cuBLAS INT8 GemmEx against SGEMM at n = 4096.
# WB=path/to/warpbench picks the binary (default: build/warpbench, brought
# up to date with the default preset first). Needs jq. About 20 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${WB:-}" ]]; then # bring build/ up to date with the sources
  cd "$root"
  cmake --preset default >/dev/null
  cmake --build --preset default -j"$(nproc)" >/dev/null
fi
WB=${WB:-$root/build/warpbench}
GEMM_N=${GEMM_N:-1024}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wb-bench-q.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"

echo "quantize benchmark on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))" >&2
"$WB" --db "$DB" --json lab run quantize --set part=sqnr --set n_samples=1048576 2>"$tmp/err1" |
  tail -n 1 | jq -c .figures >"$tmp/sqnr" || { cat "$tmp/err1" >&2; exit 1; }
"$WB" --db "$DB" --json lab run quantize --set part=gemm --set gemm_n="$GEMM_N" --set min_ms=400 \
  2>"$tmp/err2" | tail -n 1 | jq -c .figures >"$tmp/gemm" || { cat "$tmp/err2" >&2; exit 1; }
f() { jq -r ".$2 // \"-\"" "$tmp/$1"; }
n() { jq -r "if .$2 == null then \"-\" else (.$2 * 100 | round / 100 | tostring) end" "$tmp/$1"; }

printf '\n%-52s %s\n' "measure" "value"
printf '%-52s %s dB (goal < 0.2)\n' "uniform: largest |SQNR - 6.02 b|, b = 4..12" "$(n sqnr uniform_max_dev_db)"
printf '%-52s %s dB\n' "sine: largest |SQNR - (6.02 b + 1.76)|, b = 4..12" "$(n sqnr sine_max_dev_db)"
printf '%-52s %s dB\n' "sine: short of the formula at 4 bits" "$(n sqnr sine_dev_b4)"
printf '%-52s %s dB/bit\n' "slope (uniform, least squares)" "$(n sqnr slope_db)"
printf '%-52s %s dB (peak/RMS %s)\n' "Gaussian scaled by max: below the formula at 8 bits" \
  "$(n sqnr gauss_gap_b8)" "$(n sqnr peak_rms_gauss)"
printf '%-52s %s dB\n' "Gaussian: optimal clip gains at 4 bits" "$(n sqnr clip_gain_b4)"
printf '%-52s %s dB\n' "outlier rows: per-channel over per-tensor, 8 bits" "$(n sqnr outlier_gain_b8)"
printf '%-52s %s\n' "GEMM n" "$(f gemm gemm_n)"
printf '%-52s %s GFLOP/s\n' "ours FP32 (1 thread)" "$(n gemm cpu_f32_gflops)"
printf '%-52s %s GOP/s (%s path), %sx FP32\n' "ours INT8 (1 thread)" "$(n gemm cpu_s8_gops)" \
  "$(f gemm cpu_s8_path)" "$(n gemm cpu_s8_over_f32)"
printf '%-52s %s GOP/s\n' "ours INT8 through pmaddwd (AVX2), when VNNI is best" "$(n gemm cpu_madd_gops)"
printf '%-52s %s\n' "oneDNN" "$(f gemm dnnl)"
printf '%-52s %s GFLOP/s, INT8 %s GOP/s: %sx\n' "oneDNN FP32 (1 thread)" "$(n gemm dnnl_f32_gflops)" \
  "$(n gemm dnnl_s8_gops)" "$(n gemm dnnl_s8_over_f32)"
printf '%-52s %s GFLOP/s, INT8 %s GOP/s\n' "oneDNN FP32 (every core)" "$(n gemm dnnl_f32_gflops_all)" \
  "$(n gemm dnnl_s8_gops_all)"
if [ "$(f gemm device)" = gpu ]; then
  printf '%-52s %s TFLOP/s, INT8 %s TOP/s: %sx (%s)\n' "cuBLAS SGEMM at n = $(f gemm gpu_n)" \
    "$(n gemm gpu_f32_tflops)" "$(n gemm gpu_s8_tops)" "$(n gemm gpu_s8_over_f32)" "$(f gemm gpu_name)"
else
  printf '%-52s %s\n' "GPU" "$(f gemm no_gpu)"
fi
