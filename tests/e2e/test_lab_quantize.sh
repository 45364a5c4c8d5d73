#!/usr/bin/env bash
# The quantize lab through the real binary: listed with its parameters;
# impossible parameters refused before running (exit 2, naming the
# parameter); a small JSON run with its series and summary stored, the
# full-scale uniform signal within 0.2 dB of 6.02 b for b = 4..12
# (arithmetic, not timing); the GPU header line when there is no GPU; and
# lab-linked questions graded against the run.
. "$(dirname "$0")/lib.sh"

run lab list
expect_rc 0 "lab list"
expect_out "quantize — Quantization: bits, noise, accuracy, speed" "quantize listed with its title"
run --json lab list
expect_jq '[.labs[] | select(.name == "quantize") | .params[].name] | join(",")' \
  "part,bits_min,bits_max,n_samples,seed,channels,outlier_channels,outlier_scale,hidden,epochs,n_train,gemm_n,min_ms,device,gpu_n,gpu_reps" \
  "every parameter listed"
expect_jq '[.labs[] | select(.name == "quantize") | .series[] | select(.x_log) | .name] | join(",")' \
  "gemm_ours_f32,gemm_ours_s8,gemm_dnnl_f32,gemm_dnnl_s8" "the GEMM chart has a log x axis"

# ---- refused before running -------------------------------------------------
expect_refused "bits_min > bits_max" "parameter 'bits_min' (9) must not be larger than 'bits_max' (8)" \
  lab run quantize --set bits_min=9 --set bits_max=8
expect_refused "too many outlier rows" "parameter 'outlier_channels' (8)" \
  lab run quantize --set channels=8 --set outlier_channels=8
expect_refused "gpu_n not a multiple of 16" "parameter 'gpu_n' (1000)" lab run quantize --set gpu_n=1000
expect_refused "bits out of range" "bits_max" lab run quantize --set bits_max=17
[ "$(sql 'SELECT COUNT(*) FROM lab_runs' 2>/dev/null || echo 0)" = 0 ] && ok ||
  fail "refused runs are not recorded"

# ---- a small run, as JSON lines ---------------------------------------------
SMALL=(--set n_samples=65536 --set hidden=8 --set epochs=2 --set n_train=512 --set gemm_n=64
  --set min_ms=1 --set bits_min=2 --set bits_max=12)
run --json lab run quantize "${SMALL[@]}"
expect_rc 0 "a quantize run"
ALL=$OUT
OUT=$(tail -n 1 <<<"$ALL")
expect_jq .status done "done"
RUN=$(jqv .run)
expect_jq '.figures.uniform_max_dev_db < 0.2' true "uniform within 0.2 dB of 6.02 b for b = 4..12"
expect_jq '(.figures.formula_b8 - 49.92) | fabs < 1e-9' true "the formula at 8 bits"
expect_jq '.figures.sqnr_gauss_max_b8 < .figures.formula_b8 - 5' true "the max-scaled Gaussian misses"
expect_jq '.figures.sqnr_ordinary_channel_b8 > .figures.sqnr_ordinary_tensor_b8' true "per channel helps"
expect_jq '.figures.weights' 224 "16x8 + 8x8 + 8x4 weights"
OUT=$ALL
bad=$(jq -r 'select(.type == "sample" and .series == "uniform" and .step >= 4 and .step <= 12)
  | select(((.value - 6.02 * .step) | fabs) >= 0.2) | .step' <<<"$OUT" | wc -l)
n=$(jq -r 'select(.type == "sample" and .series == "uniform" and .step >= 4 and .step <= 12) | .step' <<<"$OUT" | wc -l)
[ "$n" = 9 ] && [ "$bad" = 0 ] && ok || fail "uniform samples at b = 4..12 ($n of them, $bad off by 0.2 dB or more)"
expect_sql "SELECT status FROM lab_runs WHERE id = $RUN" done "stored"
expect_sql "SELECT COUNT(*) FROM lab_samples WHERE run_id = $RUN AND series = 'formula'" 11 \
  "the formula at b = 2..12 stored"

# ---- no GPU: the first line and the summary say why ---------------------------
if "$WB" --db "$DB" lab run quantize --set part=gemm --set gemm_n=32 --set min_ms=1 \
  >"$T/q.out" 2>"$T/q.err"; then ok; else fail "part=gemm runs: $(cat "$T/q.err")"; fi
if grep -q "no GPU" "$T/q.err"; then
  head -n 1 "$T/q.err" | grep -q "no GPU: .*the GPU INT8/FP32 comparison is skipped" && ok ||
    fail "the first line says there is no GPU: $(head -n 1 "$T/q.err")"
  grep -q "no_gpu  *no GPU" "$T/q.out" && ok || fail "the summary says why"
  grep -q "device  *cpu" "$T/q.out" && ok || fail "the summary says cpu"
else
  grep -q "INT8 results checked exactly" "$T/q.err" && ok || fail "GPU run checked: $(cat "$T/q.err")"
fi

# ---- lab-linked questions graded against the latest complete run --------------
run --json lab run quantize "${SMALL[@]}"
OUT=$(tail -n 1 <<<"$OUT")
W=$(jqv .figures.weights)
NB=$(jqv .figures.biases)
run question lab-quantize.size-4bit
expect_rc 0 "show the question"
expect_out "has $W weights and $NB biases" "the prompt shows the run's model"
run --json answer lab-quantize.size-4bit "$W*4/8 + 4*$NB + 4*$NB"
expect_jq .correct true "right for this run"
run --json answer lab-quantize.size-4bit "$W*4/8"
expect_jq .correct false "weights alone is wrong"
run question lab-quantize.db-per-bit
u4=$(grep -o "[0-9.]* dB with 4 bits" <<<"$OUT" | awk '{print $1}')
u8=$(grep -o "[0-9.]* dB with 8 bits" <<<"$OUT" | awk '{print $1}')
run --json answer lab-quantize.db-per-bit "($u8-$u4)/4"
expect_jq .correct true "dB per bit from the run's two numbers"

finish
