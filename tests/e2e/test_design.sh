#!/usr/bin/env bash
# Design answers graded by evidence, through the real binary: the three
# questions the assessment issue named give a bare keyword list and a
# paragraph asserting the opposite at most a quarter of the points, and a
# good answer full marks; the score is marked automatic; every kind tells
# its answer limit before grading and refuses a longer answer.
. "$(dirname "$0")/lib.sh"

# answer_frac QID TEXT: grades TEXT; sets FRAC to score/max (3 decimals).
answer_frac() {
  run --json answer "warpbench.core:$1" "$2"
  FRAC=$(jqv '(.score / .max * 1000 | round) / 1000')
}
# at_most_quarter QID WHAT TEXT
at_most_quarter() {
  answer_frac "$1" "$3"
  if awk -v f="$FRAC" 'BEGIN { exit !(f <= 0.25) }'; then ok; else fail "$1 $2 scores $FRAC (> 0.25): $OUT"; fi
}

# ---- amdahl.scaling-design -------------------------------------------------------
at_most_quarter amdahl.scaling-design "keyword list" \
  "Speedup, efficiency, 5.5x, 69%, Karp-Flatt, serial fraction, profile, Nsight, timeline,
all-reduce, communication, NCCL, overlap, gradient buckets, compression, data loading,
prefetch, weak scaling, Gustafson, larger batch"
expect_jq '.feedback | test("list of terms")' "true" "the list is told to write sentences"
at_most_quarter amdahl.scaling-design "reversed" \
  "This job scales perfectly and there is no serial fraction. Profiling is pointless, the
all-reduce is free with NCCL, overlapping communication never helps, data loading is not the
problem, and weak scaling with a larger batch changes nothing."
expect_jq '.feedback | test("Contradicted")' "true" "the reversal is named"
answer_frac amdahl.scaling-design "The speedup is 800/145 = 5.5x on 8 GPUs, so the efficiency
is 69%. The Karp-Flatt serial fraction is about 0.064. I would profile one step with a timeline
in Nsight to see where the time goes; the gradient all-reduce is the likely cost, since its
communication grows with the number of GPUs. I would overlap it with the backward pass using
gradient buckets, prefetch the input data, and try weak scaling with a larger batch per GPU."
expect_jq '.correct' "true" "a good answer: full marks"
expect_jq '.score' "4" "all four points"

# ---- gpu.transpose-design ------------------------------------------------------------
at_most_quarter gpu.transpose-design "keyword list" \
  "coalesced, uncoalesced, strided writes, shared memory, tile, tiling, bank conflicts,
padding, 33, profile, Nsight, sectors per request, copy, bandwidth, ceiling"
at_most_quarter gpu.transpose-design "reversed" \
  "The writes are coalesced and the reads are strided. A shared memory tile would not help,
bank conflicts never happen, padding is useless and there is no need to profile."
answer_frac gpu.transpose-design "The reads are coalesced, but the writes out[x][y] are strided:
a warp writes one column, so each thread touches its own sector. Nsight Compute would confirm
it with about 32 sectors per request on the stores. I would stage a 32 x 32 tile in shared
memory, read it with coalesced rows and write it back transposed, padding the tile to 33 columns
against bank conflicts, and compare the result with the copy bandwidth."
expect_jq '.correct' "true" "a good answer: full marks"

# ---- assessment.cpu-gpu ---------------------------------------------------------------
# The assessment is an exam (one answer per question, grades after the exam
# is submitted): each answer is a student of its own, who submits and then
# reads the grade and feedback from the question's history.
# exam_frac USER QID TEXT: sets FRAC (3 decimals) and OUT (the question's JSON).
exam_frac() {
  WARPBENCH_USER=$1 run --json answer "warpbench.core:$2" "$3"
  WARPBENCH_USER=$1 run exam submit assessment
  WARPBENCH_USER=$1 run --json question "warpbench.core:$2"
  FRAC=$(jqv '(.history[0].score / .points * 1000 | round) / 1000')
}
exam_at_most_quarter() {
  exam_frac "$1" "$2" "$4"
  if awk -v f="$FRAC" 'BEGIN { exit !(f <= 0.25) }'; then ok; else fail "$2 $3 scores $FRAC (> 0.25): $OUT"; fi
}
exam_at_most_quarter kim assessment.cpu-gpu "keyword list" \
  "throughput, latency-oriented, thousands of cores, SIMT, warps, lockstep, HBM, bandwidth,
latency hiding, occupancy, switching warps, matrix multiplication, GEMM, tensor cores"
exam_at_most_quarter lee assessment.cpu-gpu "reversed (the issue's example)" \
  "GPUs have no SIMT and cannot hide latency. Both CPUs and GPUs are built for throughput in
the same way, GPUs do not have more cores, memory bandwidth does not matter, and neural
networks do not rely on matrix multiplication."
expect_jq '.history[0].feedback | test("Contradicted: latency hiding")' "true" \
  "the contradiction's own feedback"
exam_frac max assessment.cpu-gpu "A CPU is optimised for latency, with a few complex cores and
large caches, while a GPU is optimised for throughput with thousands of simple cores and high
memory bandwidth. The GPU runs threads in warps under SIMT, one instruction for 32 threads, and
it hides memory latency by switching to another ready warp. Neural networks are mostly matrix
multiplications, which suits this design."
expect_jq '.history[0].score == .points' "true" "a good answer: full marks"
expect_jq '.history[0].score' "4" "all four points"

# ---- the answer's score is said to be automatic and provisional ---------------------
WARPBENCH_USER=auto run --json answer warpbench.core:amdahl.scaling-design "Efficiency falls as GPUs are added."
expect_jq '.automatic' "true" "a design answer's score is marked automatic"
WARPBENCH_USER=auto run answer warpbench.core:amdahl.scaling-design "Efficiency falls as GPUs are added."
expect_out "automatic, provisional score" "and the text output says it is provisional"
WARPBENCH_USER=auto run --json answer warpbench.core:amdahl.speedup-worked 5
expect_jq '.automatic' "false" "a numeric answer's is not"

# ---- --json carries what the grader read: "claims", one per rubric concept -----------
# claims_of USER TEXT: answers inference.design (a practice question: graded at once).
claims_of() { WARPBENCH_USER=$1 run --json answer warpbench.core:inference.design "$2"; }
claims_of ev1 "INT8 quantization turns 100 MB of FP32 weights into 25 MB. We start with
post-training quantization and check accuracy on a held-out validation set."
expect_jq '.claims | length' "6" "one entry per rubric concept"
expect_jq '[.claims[].concept] | join("|")' "INT8 quantization|PTQ first, QAT if needed|structured pruning|distillation|measure accuracy|measure latency on the device" \
  "in the rubric's order"
expect_jq '.claims[0] | [.status, .how, .subject, .relation, .object, .points, .earned] | join("|")' \
  "found|claim|INT8 quantization|turns|100 MB of FP32 weights into 25 MB|2|2" \
  "a held claim: its subject, relation and object as read"
expect_jq '.claims[0].clause' "INT8 quantization turns 100 MB of FP32 weights into 25 MB" "and its clause"
expect_jq '.claims[4] | [.status, .subject, .relation] | join("|")' "found|We|check" \
  "a shared subject stands for what it refers to"
expect_jq '.claims[2] | [.status, .earned, .clause, .subject, .relation, .object] | tojson' \
  '["missing",0,null,null,null,null]' "a missing concept: nothing read"
expect_jq '([.claims[].earned] | add) / ([.claims[].points] | add) == .score / .max' "true" \
  "the concepts' earned points make the score"
claims_of ev2 "Quantizing to INT8 would lose far more than 1% accuracy, so the weights must stay in FP32."
expect_jq '.claims[0] | [.status, .earned, .clause, .relation] | join("|")' \
  "contradicted|0|the weights must stay in FP32|must stay" "a contradiction, with the clause that says it"
claims_of ev3 "If we pruned whole channels, the model would be faster."
expect_jq '.claims[2] | [.status, .how, .clause, .relation, .object] | join("|")' \
  "unclaimed|a condition|we pruned whole channels|pruned|whole channels" "a condition is read, not credited"
claims_of ev4 "Should we distil the model into a smaller student?"
expect_jq '.claims[3] | [.status, .how, .subject] | join("|")' "unclaimed|a question|we" \
  "a question is read, not credited"
WARPBENCH_USER=ev5 run --json answer warpbench.core:amdahl.speedup-worked 5
expect_jq 'has("claims")' "false" "a numeric answer has no claims"
# an exam answer tells nothing of its grade before the exam is submitted
WARPBENCH_USER=ev6 run --json answer warpbench.core:assessment.cpu-gpu "A GPU is optimised for throughput."
expect_jq '.hidden' "true" "an exam answer is hidden"
expect_jq 'has("claims")' "false" "so is what the grader read in it"

# ---- limits told before grading, and kept ------------------------------------------
run --json question warpbench.core:assessment.cpu-gpu
expect_jq '.max_answer' "16384" "a design answer: 16 KiB"
run question warpbench.core:assessment.cpu-gpu
expect_out "answers up to 16 KiB are graded" "said in the text output"
run --json question warpbench.core:amdahl.speedup-worked
expect_jq '.max_answer' "1024" "a numeric answer: 1 KiB"
run --json question warpbench.core:mapreduce.wordcount-shuffle
expect_jq '.max_answer' "4096" "a text answer: 4 KiB"
run --json answer warpbench.core:assessment.cpu-gpu "$(printf 'The GPU hides latency. %.0s' $(seq 1 800))"
expect_rc 3 "a 18 KB design answer is not graded"
expect_jq '.feedback | test("too long: 18400 bytes, and this question grades at most 16384")' "true" \
  "and says why"
finish
