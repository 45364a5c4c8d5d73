#!/usr/bin/env bash
# The built-in course after its audit (issue 28), through the real binary:
#   - the one rounding rule: every numeric prompt of every lesson states its
#     answer format (three significant figures, or a whole number), and the
#     rule decides the audit's cases the same way everywhere (4.3 for 4.255
#     and 0.17 for 1/6 are too coarse, named so; 6.7 for 6.667 is within 1%);
#   - each graded fault the audit found, answered with the right value in the
#     forms the prompt names, and with the near miss it must reject:
#     1 the SNR of INT8 ("49" is not 49.9), 2 the serial fraction of "3 on 5"
#     (0.17 is not early rounding, 0.1625 is), 3 checkpoints over 50 layers
#     (ceil(50/7) = 8), 4 f = 0.15 on 10 processors, 5 a quantized code
#     (rounded to NEAREST), 6 Little's law on a serving run whose every load
#     point was overloaded (explained, not graded);
#   - variants stay within physical limits (ZeRO states fit an 80 GB GPU, at
#     most 128 micro-batches);
#   - a k-means run from a points file reports the file's n and d as its
#     parameters (--json summary and lab show);
#   - the topics the audit found taught but not assessed have their pages
#     and questions.
. "$(dirname "$0")/lib.sh"

# Each answer below is a new student's first try (a question closes after
# its tries, and a try must not depend on the ones before it).
uid=0
# right QID ANSWER: full marks.
right() {
  uid=$((uid + 1))
  run --user "student$uid" --json answer "warpbench.core:$1" "$2"
  expect_rc 0 "$1: '$2' is right"
  expect_jq .correct true "$1: '$2' correct"
}
# graded QID ANSWER SCORE [REGEX [NOT-REGEX]]: read and graded, not full
# marks, with SCORE points; feedback matches REGEX and not NOT-REGEX.
graded() {
  uid=$((uid + 1))
  run --user "student$uid" --json answer "warpbench.core:$1" "$2"
  expect_rc 1 "$1: '$2' is not full marks"
  expect_jq .valid true "$1: '$2' was read"
  expect_jq .score "$3" "$1: '$2' earns $3"
  if [ -n "${4:-}" ]; then
    expect_jq "(.feedback // \"\") | test(\"$4\"; \"i\")" true "$1: feedback for '$2' says $4"
  fi
  if [ -n "${5:-}" ]; then
    expect_jq "(.feedback // \"\") | test(\"$5\"; \"i\")" false "$1: feedback for '$2' does not say $5"
  fi
}
# prompt QID [VARIANT]: sets P to the prompt (one line).
prompt() {
  run --json question "warpbench.core:$1" ${2:+--variant "$2"}
  expect_rc 0 "$1 shown"
  P=$(jqv .prompt | tr '\n' ' ')
}
# num REGEX: the first number after the text REGEX matches in P.
num() { grep -oE "$1 *-?[0-9]+(\.[0-9]+)?" <<<"$P" | head -1 | grep -oE -- "-?[0-9]+(\.[0-9]+)?$"; }

run lessons
expect_rc 0 "built-in course imported"

# ---- The rounding rule is stated in every numeric prompt -------------------------
run --json lessons
lessons=$(jqv '.packs[] | select(.id == "warpbench.core") | .lessons[].id')
n_numeric=0
for l in $lessons; do
  run --json show "$l"
  for q in $(jqv '.questions[] | select(.kind == "numeric") | .id'); do
    n_numeric=$((n_numeric + 1))
    run --json question "warpbench.core:$q"
    if jqv .prompt | tr '\n' ' ' | grep -qiE "three significant figures|a whole number|decimals"; then ok; else
      fail "$q: the prompt does not state the answer format: $(jqv .prompt)"
    fi
  done
done
[ "$n_numeric" -gt 200 ] && ok || fail "only $n_numeric numeric questions found"
# The rule is taught on the course's first page.
run show amdahl --page 1
expect_out "Numbers in your answers" "the rule's section on the first page"
expect_out "three significant figures" "the rule itself"

# ---- 1. inference.snr-int8-worked: "49" is not 49.92 -----------------------------
prompt inference.snr-int8-worked
grep -q '"49"' <<<"$P" && fail "the prompt still promises that 49 works: $P" || ok
grep -q "three significant figures" <<<"$P" && ok || fail "the prompt states the format: $P"
right inference.snr-int8-worked 49.9
right inference.snr-int8-worked "49.9 dB"
right inference.snr-int8-worked 49.92
right inference.snr-int8-worked "6.02*8+1.76"
graded inference.snr-int8-worked 49 0 "three significant figures"
graded inference.snr-int8-worked "49 dB" 0 "three significant figures"
graded inference.snr-int8-worked 48.16 0 "1.76"

# ---- 2. amdahl.serial-fraction-worked: 0.17 is coarse, 0.1625 early rounding ------
right amdahl.serial-fraction-worked 0.167
right amdahl.serial-fraction-worked 1/6
right amdahl.serial-fraction-worked 16.7%
right amdahl.serial-fraction-worked 0.16625
graded amdahl.serial-fraction-worked 0.17 0.5 "three significant figures" "too early"
graded amdahl.serial-fraction-worked 0.1625 0 "0.33 too early"

# ---- 3. distributed.ckpt-count-worked: a checkpoint every 7 of 50 layers is 8 -----
prompt distributed.ckpt-count-worked
grep -q "every 7 layers" <<<"$P" && ok || fail "the prompt fixes the segment length: $P"
right distributed.ckpt-count-worked 8
right distributed.ckpt-count-worked "ceil(50/7)"
right distributed.ckpt-count-worked "(50 + 6) / 7"
graded distributed.ckpt-count-worked 7 0 "50th"
graded distributed.ckpt-count-worked 7.07 0
run show distributed
expect_out "⌈50/7⌉ = **8**" "the page counts the segments"

# ---- 4. f = 0.15 on 10 processors: one rule for rounded answers ---------------------
prompt amdahl.speedup-15-worked
grep -q "three significant figures" <<<"$P" && ok || fail "speedup-15-worked states the format: $P"
right amdahl.speedup-15-worked 4.26
right amdahl.speedup-15-worked 4.25
right amdahl.speedup-15-worked 4.255
right amdahl.speedup-15-worked "1/0.235"
graded amdahl.speedup-15-worked 4.3 0.5 "three significant figures"
right amdahl.ceiling-15-worked 6.67
right amdahl.ceiling-15-worked 6.7      # two figures, 0.5% off: within 1%
prompt amdahl.limit-pair
grep -q "three significant figures" <<<"$P" && ok || fail "limit-pair states the format: $P"
right amdahl.limit-pair "4.26 6.67"
right amdahl.limit-pair "4.25 6.66"
graded amdahl.limit-pair "4.3 6.7" 1 "4.3 is more than 1% off; give three significant figures"
right amdahl.table-row "2.29 2.91 3.37 4.00"
prompt amdahl.table-p4
grep -q "three significant figures" <<<"$P" && ok || fail "the table states the format: $P"

# ---- 5. inference.quant-q: the quantizer rounds to nearest ---------------------------
for v in 1 2 3 4; do
  export WARPBENCH_USER="fault5v$v"
  prompt inference.quant-q "$v"
  mx=$(num "scale =")
  x=$(num "stores x =")
  ratio=$(awk -v x="$x" -v m="$mx" 'BEGIN { printf "%.4f", x / (m / 127) }')
  q=$(awk -v r="$ratio" 'BEGIN { q = (r < 0) ? -int(-r + 0.5) : int(r + 0.5); print q }')
  # the other integer next to the ratio: rounding the wrong way
  other=$(awk -v r="$ratio" -v q="$q" 'BEGIN { f = (r < 0) ? -int(-r) : int(r); o = (f == q) ? ((r < 0) ? f - 1 : f + 1) : f; print o }')
  run --json answer warpbench.core:inference.quant-q "$q" --variant "$v"
  expect_rc 0 "quant-q variant $v: round($x / ($mx/127)) = $q is right"
  run --json answer warpbench.core:inference.quant-q "$ratio" --variant "$v"
  expect_rc 1 "quant-q variant $v: the unrounded $ratio is wrong"
  expect_jq '.feedback | test("NEAREST")' true "quant-q variant $v: says to round to nearest"
  expect_jq '.feedback | test("ceil|floor|round it (up|down)"; "i")' false \
    "quant-q variant $v: no ceil/floor advice"
  run --json answer warpbench.core:inference.quant-q "$other" --variant "$v"
  expect_rc 1 "quant-q variant $v: the neighbouring code $other is wrong"
  expect_jq '.feedback | test("round it (up|down)"; "i")' false "quant-q variant $v: no up/down advice"
done

# ---- 6. lab-serving.little: never an overloaded point ---------------------------------
export WARPBENCH_USER=fault6
# Far above what one CPU worker can answer: every load point is overloaded.
run --json lab run serving --set d=64 --set hidden=1024 --set max_batch=1 --set workers=1 \
  --set device=cpu --set capacity=200000 --set loads=0.5,0.9 --set duration_s=0.1 --set sweep=rate
expect_rc 0 "an overloaded serving run completes"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq '.figures.stable_load50 == 0 and .figures.stable_load90 == 0' true "both points overloaded"
prompt lab-serving.little
grep -q "overloaded" <<<"$P" && ok || fail "the prompt says why it cannot be answered: $P"
grep -q "warpbench lab run serving" <<<"$P" && ok || fail "the prompt says to run again: $P"
run --json answer warpbench.core:lab-serving.little 50
expect_rc 3 "an answer about an overloaded run is not graded"
expect_jq '.feedback | test("Run `warpbench lab run serving` again")' true "the feedback asks for a new run"

# ---- Variants within physical limits ---------------------------------------------------
export WARPBENCH_USER=limits
# An exam's variants are fixed for a student until the exam is submitted;
# after that the others are practice, which this user reads.
run exam start assessment
expect_rc 0 "the limits user starts the exam"
run exam submit assessment
expect_rc 0 "and submits it, empty"
for v in $(seq 1 15); do   # (every variant: the pack check self-tests)
  run --json giveup warpbench.core:distributed.zero-memory --variant "$v"
  gb=$(jqv .reference | awk '{ print $1 }')
  awk -v g="$gb" 'BEGIN { exit !(g <= 64) }' && ok || fail "distributed.zero-memory variant $v: $gb GB per GPU"
  run --json giveup warpbench.core:distributed.microbatches --variant "$v"
  m=$(jqv .reference | awk '{ print $1 }')
  [ "$m" -le 128 ] && ok || fail "distributed.microbatches variant $v: $m micro-batches"
  # an exam question: computed from the prompt's own numbers
  prompt assessment.zero-memory "$v"
  n=$(num "A"); N=$(num "on"); st=$(num "ZeRO stage")
  awk -v n="$n" -v N="$N" -v s="$st" 'BEGIN {
    m = (s == 1) ? 4 * n + 12 * n / N : (s == 2) ? 2 * n + 14 * n / N : 16 * n / N
    exit !(m <= 64) }' && ok || fail "assessment.zero-memory variant $v: $P"
done

# ---- k-means: a run from a file reports the file's n and d ---------------------------
printf 'x1,x2,x3\n' >"$T/pts.csv"
for i in $(seq 1 30); do echo "$i,$((i % 7)),$((i % 3))" >>"$T/pts.csv"; done
run --json lab run kmeans --set file="$T/pts.csv" --set k=2 --set tasks=2 --set workers=2
expect_rc 0 "k-means from a file"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .params.n 30 "params.n is the file's point count"
expect_jq .params.d 3 "params.d is the file's dimension"
expect_jq '.figures.n == .params.n and .figures.d == .params.d' true "params agree with figures"
RUN=$(jqv .run)
run --json lab show "$RUN"
expect_jq '.params.n' 30 "the stored run's n"
expect_jq '.params.d' 3 "the stored run's d"

# ---- Topics taught and now assessed ------------------------------------------------------
# lesson: page title, then questions on it
topic() {
  local lesson=$1 title=$2; shift 2
  run show "$lesson"
  expect_out "$title" "$lesson: the page '$title'"
  for q in "$@"; do
    run --json question "warpbench.core:$q"
    expect_rc 0 "$q exists"
  done
}
topic distributed "Inside a tensor-parallel layer" distributed.tp-weights distributed.tp-allreduce \
  distributed.tp-split distributed.pipe-1f1b distributed.pipe-schedules
topic distributed "gradient noise scale" distributed.noise-steps distributed.noise-estimate \
  distributed.batch-ramp
topic memory "Memory pools and fragmentation" memory.pool-rounding memory.pool-holes \
  memory.pool-remedies
topic memory "Graph compilers" memory.trace-branch memory.bn-fold memory.nchw-stride
topic gpu "cuDNN and its choice of algorithm" gpu.cudnn-breakeven gpu.cudnn-shapes gpu.cudnn-when
topic frontiers "FPGAs and 16-bit fixed point" frontiers.fixed-code frontiers.fixed-range \
  frontiers.fpga-fit
topic frontiers "Energy, heat and performance per watt" frontiers.inferences-per-wh \
  frontiers.power-cap frontiers.throttling
topic inference "After deployment: monitoring, drift and retraining" inference.psi \
  inference.retrain-interval inference.drift-kind inference.lifecycle
topic lab-serving "Next step: serving engines" lab-serving.decode-tokens lab-serving.paged-fit \
  lab-serving.continuous
# a few answered with the pages' own numbers
right distributed.pipe-schedules "a b"
right gpu.cudnn-when a
right inference.drift-kind a
right lab-serving.continuous a
graded memory.trace-branch b 0 "scripting"
# the paramserver lab's model, written out
run show lab-paramserver
expect_out "The model, precisely" "the lab's model page"
expect_out "0x5eed5eed5eed" "the hidden weights' seed"

finish
