#!/usr/bin/env bash
# The coalescing lab through the real binary at tiny sizes: without a GPU,
# the one clear "no GPU" line and the CPU analog with the model beside it;
# the model's figures; the CPU figures present and sane; bad parameters
# refused (exit 2) with the parameter named; and a lab-linked question of
# the lesson graded against this run. On a machine with a GPU the auto run
# takes the GPU path instead, and its figures are checked for presence.
. "$(dirname "$0")/lib.sh"

TINY=(--set cpu_mib=1 --set cpu_reps=1 --set offset_max=8 --set stride_max=16 --set gpu_mib=16 --set reps=3)

# ---- device=auto ------------------------------------------------------------
run --json lab run coalescing "${TINY[@]}"
expect_rc 0 "auto run"
SUM=$(tail -n 1 <<<"$OUT")
OUT_ALL=$OUT
OUT=$SUM
expect_jq .status done "status done"
DEVICE=$(jqv .figures.device)
if [ "$DEVICE" = cpu ]; then
  # exactly one line about the GPU, and it is the first thing said
  n=$(grep -c "no GPU" <<<"$ERR")
  [ "$n" -eq 1 ] && ok || fail "one 'no GPU' line, got $n: $ERR"
  first=$(head -n 1 <<<"$ERR")
  grep -q "^coalescing: warning: no GPU: .* — running the model and the CPU analog$" <<<"$first" &&
    ok || fail "the first line says no GPU and what runs instead: $first"
  expect_jq '.figures.no_gpu | startswith("no GPU: ")' true "the reason is recorded"
  expect_jq '.note | test("no GPU: .* — running the model and the CPU analog")' true \
    "the run's note says it was the CPU analog and why (JSON)"
  run lab run coalescing "${TINY[@]}"
  expect_rc 0 "auto run, text"
  expect_out "  note: no GPU: " "the summary says it was the CPU analog and why (text)"
  # device=gpu without one: refused before running, naming the parameter
  run lab run coalescing --set device=gpu
  expect_rc 2 "device=gpu without a GPU"
  expect_err "parameter 'device' is gpu, but no GPU" "names the parameter and why"
else
  expect_jq .figures.device gpu "a GPU run"
  expect_jq '.figures.copy_gbs > 0 and .figures.memcpy_gbs > 0' true "GPU copy figures"
  expect_jq '.figures.transpose_padded_gbs > 0 and .figures.stride4_frac_copy > 0' true \
    "GPU transpose and stride figures"
  expect_jq '.figures.gpu_l2_bytes > 0 and .figures.gpu_bus_bits > 0' true "L2 and bus recorded"
fi
# the model, whatever ran
OUT=$SUM
expect_jq .figures.model_sectors_stride1 4 "32 consecutive floats: 4 sectors"
expect_jq .figures.model_sectors_stride2 8 "stride 2: 8 sectors"
expect_jq .figures.model_sectors_stride8 32 "stride 8: 32 sectors"
expect_jq .figures.model_sectors_stride32 32 "stride 32: 32 sectors"
expect_jq .figures.model_sectors_offset1 5 "offset 1: 5 sectors"
expect_jq .figures.model_lines_offset1 2 "offset 1: 2 lines"
expect_jq .figures.model_bank_ways_32x32 32 "32x32 column: 32-way"
expect_jq .figures.model_bank_ways_32x33 1 "32x33 column: no conflict"
expect_jq .figures.model_frac_stride4 0.4 "stride-4 copy: 0.4 of the copy"

# ---- the CPU analog (device=cpu runs it with or without a GPU) -------------
run --json lab run coalescing --set device=cpu "${TINY[@]}"
expect_rc 0 "cpu run"
if grep -q "no GPU" <<<"$ERR"; then fail "device=cpu is a choice, not a missing GPU: $ERR"; else ok; fi
expect_err "device=cpu: running the model and the CPU analog" "says what runs"
OUT_ALL=$OUT
OUT=$(tail -n 1 <<<"$OUT_ALL")
RUN_CPU=$(jqv .run)
expect_jq .figures.device cpu "device cpu"
expect_jq '[.figures.cpu_copy_gbs, .figures.cpu_memcpy_gbs, .figures.cpu_transpose_blocked_gbs,
            .figures.cpu_transpose_naive_gbs] | all(. > 0 and . < 100000)' true "ladder figures sane"
for s in 1 2 4 8 16; do
  expect_jq ".figures.cpu_stride${s}_gbs > 0 and .figures.cpu_stride${s}_gbs < 100000" true "stride $s GB/s"
  expect_jq "(.figures.cpu_stride${s}_frac_copy - .figures.cpu_stride${s}_gbs / .figures.cpu_copy_gbs) | fabs < 1e-9" \
    true "stride $s fraction of copy"
done
for o in 0 1 2 4 8; do
  expect_jq ".figures.cpu_offset${o}_gbs > 0" true "offset $o GB/s"
  expect_jq ".figures.cpu_model_frac_offset${o}" 1 "offset $o: the model says no extra traffic"
done
expect_jq .figures.cpu_model_frac_stride1 1 "model: stride 1 is the copy"
expect_jq .figures.cpu_model_frac_stride8 0.3 "model, 64-byte lines: (4+8)/(32+8)"
expect_jq 'has("cpu_stride32_gbs")' false "no figure beyond stride_max"
expect_jq '.figures.cpu_offset_model_maxdev >= 0' true "offset agreement recorded"
# the samples: one per point for each sweep, model beside measurement
n=$(jq -s '[.[] | select(.type == "sample" and .series == "stride_gbs")] | length' <<<"$OUT_ALL")
[ "$n" -eq 16 ] && ok || fail "16 stride points, got $n"
n=$(jq -s '[.[] | select(.type == "sample" and .series == "offset_model_gbs")] | length' <<<"$OUT_ALL")
[ "$n" -eq 9 ] && ok || fail "9 offset model points, got $n"
expect_sql "SELECT status, json_extract(summary_json, '\$.device') FROM lab_runs WHERE id = $RUN_CPU" \
  "done|cpu" "stored"

# ---- bad parameters ---------------------------------------------------------
expect_refused "offset_max out of range" "parameter 'offset_max' must be an integer from 0 to 32, not 33" \
  lab run coalescing --set offset_max=33
expect_refused "stride_max out of range" "'stride_max'" lab run coalescing --set stride_max=0
expect_refused "bad device" "auto|gpu|cpu" lab run coalescing --set device=tpu
expect_refused "cpu_mib out of range" "parameter 'cpu_mib' must be an integer from 1 to 4096, not 5000" \
  lab run coalescing --set cpu_mib=5000
expect_refused "reps not a number" "'reps'" lab run coalescing --set reps=abc

# ---- a lab-linked question graded against the run ---------------------------
run question lab-coalescing.stride4-frac
expect_rc 0 "show the stride-4 question"
expect_out "ran on your CPU" "the prompt uses this run's CPU figures"
OUT=$(tail -n 1 <<<"$OUT_ALL")
ref=$(jqv '.figures.cpu_stride4_gbs / .figures.cpu_copy_gbs')
run --json answer lab-coalescing.stride4-frac "$ref"
expect_rc 0 "graded right against this run"
expect_jq .correct true "the ratio of the run's own figures"
run --json answer lab-coalescing.stride4-frac "2*$ref"
expect_rc 1 "twice that is wrong"
run --json answer lab-coalescing.sectors 4
expect_jq '.valid' true "the sectors question is graded once there is a run"

finish
