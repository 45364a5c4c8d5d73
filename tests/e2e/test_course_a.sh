#!/usr/bin/env bash
# The built-in course, lessons 1-4 (amdahl, parallelism, memory, gpu): every
# worked example of the course material is answered with the document's own
# answer through the real binary and gets full marks (exit 0), and a typical
# wrong answer does not (exit 1), with feedback that names the mistake. Where
# a document's arithmetic is off, the corrected value is the right one and
# the document's value is checked to be explained.
. "$(dirname "$0")/lib.sh"

# right QID ANSWER: full marks.
right() {
  run --json answer "warpbench.core:$1" "$2"
  expect_rc 0 "$1: '$2' is right"
  expect_jq .correct true "$1: '$2' correct"
}
# wrong QID ANSWER [REGEX]: graded, not full marks; feedback matches REGEX.
wrong() {
  run --json answer "warpbench.core:$1" "$2"
  expect_rc 1 "$1: '$2' is wrong"
  expect_jq .correct false "$1: '$2' not correct"
  if [ -n "${3:-}" ]; then
    expect_jq ".feedback | test(\"$3\"; \"i\")" true "$1: feedback for '$2'"
  fi
}

run lessons
expect_rc 0 "built-in course imported"

# ---- Lesson 1: Amdahl's law (midterm crash course, notes) -------------------
# f = 0.2, p = 4, T_seq = 100 s: 2.5x, 40 s, max 5x.
right amdahl.speedup-worked 2.5
wrong amdahl.speedup-worked 1.18 "serial fraction"
right amdahl.time-worked 40
wrong amdahl.time-worked 25 "serial"
right amdahl.ceiling-worked 5
wrong amdahl.ceiling-worked 1.25 "parallel share"
# f = 0.15, p = 10: 4.26x and max 6.67x.
right amdahl.limit-pair "4.26 6.67"
wrong amdahl.limit-pair "4.26 1.18" "parallel share"
expect_jq .score 1 "limit-pair: half of 2 points for the right speedup"
# Speedup 3 on 5 processors: f = 0.167 (exactly 1/6).
right amdahl.serial-fraction-worked 0.167
right amdahl.serial-fraction-worked 1/6
wrong amdahl.serial-fraction-worked 0.833 "parallel fraction"
# 20% serial on 100 processors: 4.8x.
right amdahl.hundred-worked 4.8
wrong amdahl.hundred-worked 5 "ceiling"
# The Amdahl table, with the crash course's one-decimal values: judged by
# the course's rounding rule (three significant figures; within 1%), which
# all but one of them meet (1.8 for 1.78 is 1.25% off).
right amdahl.table-row "2.3 2.9 3.4 4"
wrong amdahl.table-row "1.23 1.29 1.31 4" "parallel share"
right amdahl.table-column "6.4 4.0 3.4 1.9"
wrong amdahl.table-column "10 5 4 2"
right amdahl.table-p4 "3.1 2.5 2.3 1.6"
wrong amdahl.table-p4 "1.08 1.18 1.23 1.6" "parallel share"
right amdahl.table-p8 "4.71 3.33 2.91 1.78"
wrong amdahl.table-p8 "4.7 3.3 2.9 1.8" "three significant figures"
wrong amdahl.table-p8 "8 8 8 8" "linear"
right amdahl.table-max "10 5 4 2"
wrong amdahl.table-max "1.11 1.25 1.33 2" "parallel share"

# ---- Lesson 2: parallelism types (crash course practice) --------------------
right parallelism.kind-cnn "data parallelism"
wrong parallelism.kind-cnn b
right parallelism.kind-pipeline "task parallelism"
wrong parallelism.kind-pipeline a
right parallelism.kind-api "request parallelism"
wrong parallelism.kind-api a "independent requests"
# Pipelining raises throughput, not the latency of one item.
right parallelism.pipeline-statements "a c e"
wrong parallelism.pipeline-statements "b d"

# ---- Lesson 3: memory hierarchy (crash course, notes, guide) ----------------
# The hierarchy, fastest first: the letters depend on alice's shuffle.
run --json question warpbench.core:memory.order
expect_rc 0 "memory.order shown"
order=""
for item in "registers" "L1 cache" "L2 cache" "L3 cache" "DRAM (main memory)" "NVMe SSD" "hard disk (HDD)"; do
  i=$(jq -r --arg it "$item" '.choices | index($it)' <<<"$OUT")
  order+=$(printf "\\$(printf '%03o' $((97 + i)))")
done
right memory.order "$order"
wrong memory.order "$(rev <<<"$order")"
# L1 : RAM : network = 1 : 50 : 10,000.
right memory.ratio-worked 200
wrong memory.ratio-worked 10000 "10,000 / 50"
# IJK vs IKJ.
right memory.ikj-why b
wrong memory.ikj-why a "exactly the same"
right memory.innermost j
wrong memory.innermost k
# The guide's roofline analysis on an A100, taught with the A100 80GB SXM
# (312 TFLOP/s, 2039 GB/s); the guide's 1935 GB/s is the 80GB PCIe card.
right memory.ridge-a100 153
wrong memory.ridge-a100 0.153 "prefixes"
wrong memory.ridge-a100 161.2 "PCIe"
right memory.ai-matmul-1024 170.67
wrong memory.ai-matmul-1024 85.3 "2 operations"
right memory.fp32-ridge a
wrong memory.fp32-ridge b "FP16 tensor-core peak"
right memory.ai-add 0.0833
wrong memory.ai-add 0.125 "written too"
right memory.add-attainable "0.17 TFLOP/s"
wrong memory.add-attainable 161.25 "PCIe"
wrong memory.add-attainable "312 TFLOP/s" "memory bound"
right memory.ai-matmul-8192 2731
wrong memory.ai-matmul-8192 1365 "2 bytes"
right memory.blas-bound "a b c"
wrong memory.blas-bound "a c" "memory bound"
# The notes' question 6: a CNN slow despite high TFLOPs.
right memory.cnn-slow "It is memory bound: low arithmetic intensity, left of the roofline ridge. Profile with Nsight, fuse kernels, use CUDA graphs against launch overhead, and use FP16 mixed precision."
wrong memory.cnn-slow "The GPU is broken." "memory bound"

# ---- Lesson 4: GPU architecture (notes, guide, cheatsheet, day 5) -----------
# A warp is 32 threads; a block is up to 1024 (the notes say otherwise).
right gpu.block-size b
wrong gpu.block-size a "WARP is 32"
# Divergence: 2 units become 4.
right gpu.divergence-worked 4
wrong gpu.divergence-worked 2 "one after the other"
# Coalescing: 1 vs 32 transactions per warp, 128-byte lines, 32-byte sectors.
right gpu.lines-coalesced 1
wrong gpu.lines-coalesced 32 "128 bytes"
right gpu.lines-strided 32
wrong gpu.lines-strided 1
right gpu.strided-bytes 1024
wrong gpu.strided-bytes 4096 "sectors"
# Tensor cores: 125 -> 312 (2.5x) -> 989 TFLOP/s (the guide's "3x" is 3.17).
right gpu.tc-a100 2.5
wrong gpu.tc-a100 0.4 "upside down"
right gpu.tc-h100 3.17
wrong gpu.tc-h100 3 "to two decimals"
expect_jq '.feedback | test("3[.]17")' false "gpu.tc-h100: the near miss's feedback does not give the ratio away"
expect_jq .score 0.5 "gpu.tc-h100: the guide's rounded 3x earns half"
# FP16 epsilon: 2^-10, not the guide's 6e-4.
right gpu.fp16-eps 9.77e-4
wrong gpu.fp16-eps 6e-4 "9.77"

finish
