#!/usr/bin/env bash
# The built-in course, lessons 5-8 (MapReduce and k-means, parameter servers,
# distributed training and memory, inference and compression): every worked
# example of the course material is a fixed-number question. Answered with
# the material's (correct) answer it gets full marks (exit 0); answered with a
# typical wrong answer it does not (exit 1), and where the material itself
# slipped, the feedback says why. Also runs one calculator per lesson.
. "$(dirname "$0")/lib.sh"

# right QID ANSWER: full marks.
right() {
  run --json answer "$1" "$2"
  expect_rc 0 "$1: '$2' is right"
  expect_jq .correct true "$1: '$2' graded correct"
}

# wrong QID ANSWER [FEEDBACK-REGEX]: graded, not full marks, and the feedback
# matches the regex (case-insensitive) when one is given.
wrong() {
  run --json answer "$1" "$2"
  expect_rc 1 "$1: '$2' is wrong"
  expect_jq .valid true "$1: '$2' was read"
  if [ -n "${3:-}" ]; then
    expect_jq "(.feedback // \"\") | test(\"$3\"; \"i\")" true "$1: feedback for '$2'"
  fi
}

# ---- Lesson 5: MapReduce and k-means (midterm crash course, notes Q7)
right mapreduce.wordcount-pairs 6
wrong mapreduce.wordcount-pairs 3 "distinct"
right mapreduce.wordcount-map "(cat,1) (dog,1) (cat,1) (bird,1) (dog,1) (dog,1)"
wrong mapreduce.wordcount-map "(cat, 2) (dog, 3) (bird, 1)" "does not add"
right mapreduce.wordcount-shuffle "cat [1, 1], dog [1, 1, 1], bird [1]"
wrong mapreduce.wordcount-shuffle "cat [2], dog [3], bird [1]" "only groups"
right mapreduce.wordcount-output "cat 2, dog 3, bird 1"
right mapreduce.wordcount-output "(bird, 1) (cat, 2) (dog, 3)"
wrong mapreduce.wordcount-output "cat 1, dog 1, cat 1, bird 1, dog 1, dog 1" "map output"
right mapreduce.kmeans-speedup-worked 100
wrong mapreduce.kmeans-speedup-worked 1000 "p × k"
wrong mapreduce.kmeans-speedup-worked 10 "clusters"

# ---- Lesson 6: parameter servers and all-reduce
# 10 M FP32 parameters on 1 Gbps: one transfer 320 ms (the crash course's
# "time per sync"), a pull + push round 640 ms.
right paramserver.sync-10m-worked 320
right paramserver.sync-10m-worked "0.32 s"
wrong paramserver.sync-10m-worked 40 "gigaBITS"
wrong paramserver.sync-10m-worked 640 "full sync round"
right paramserver.sync-round-10m-worked 640
wrong paramserver.sync-round-10m-worked 320 "ONE transfer"
# 5 workers, 1 M parameters, 1 Gbps, 50 ms compute: 64 / 114 = 56%.
right paramserver.comm-fraction-worked "56%"
right paramserver.comm-fraction-worked 0.56
wrong paramserver.comm-fraction-worked 0.44 "computation"
wrong paramserver.comm-fraction-worked 0.39 "one transfer"
# Ring vs tree for 175 B FP16 gradients on 1024 GPUs at 100 GB/s.
right paramserver.ring-175b-worked 6.99
right paramserver.ring-175b-worked 7
wrong paramserver.ring-175b-worked 14 "FP16"
right paramserver.tree-175b-worked 70
wrong paramserver.tree-175b-worked 35 "broadcast"
# The guide's 100 MB on 16 GPUs at 25 GB/s with 1 us latency.
right paramserver.ring-guide-worked 7.53
wrong paramserver.ring-guide-worked 8 "2 × 15/16"
right paramserver.tree-guide-worked 32
wrong paramserver.tree-guide-worked 16 "broadcast"

# ---- Lesson 7: distributed training and memory
right distributed.dp-size-worked 4
wrong distributed.dp-size-worked 16 "accumulation"
right distributed.nvlink-worked 7
wrong distributed.nvlink-worked 14 "both directions"
right distributed.bubble-worked "27.3%"
right distributed.bubble-worked 3/11
wrong distributed.bubble-worked 0.375 "RELATIVE"
right distributed.zero-limit-worked 8
wrong distributed.zero-limit-worked 4 "ZeRO-1"
right distributed.zero1-limit-worked 4
wrong distributed.zero1-limit-worked 8 "ZeRO-2"
right distributed.ckpt-count-worked 8
wrong distributed.ckpt-count-worked 7 "50th"
wrong distributed.ckpt-count-worked 25 "ceil"
right distributed.fp16-eps-worked "2^-10"
wrong distributed.fp16-eps-worked 6e-4 "9.77e-4"

# ---- Lesson 8: inference and compression
right inference.snr-int8-worked 49.92
right inference.snr-int8-worked "49.9 dB"
wrong inference.snr-int8-worked 48.16 "1.76"
right inference.quant-size-worked 4
wrong inference.quant-size-worked 2 "halvings"
right inference.sparse-tflops-worked 989
wrong inference.sparse-tflops-worked 1979 "sparse"

# Unreadable answers are explained, not scored (exit 3).
run --json answer paramserver.sync-10m-worked "320 MB"
expect_rc 3 "a size where a time belongs"
run --json answer inference.snr-int8-worked "loud"
expect_rc 3 "not a number of dB"

# Every attempt above is stored, none valid-but-lost.
expect_sql "select count(*) from attempts where valid = 1 and question_id like 'paramserver.%'" 19 "lesson 6 attempts stored"

# One calculator per lesson, with the course's numbers.
run --json calc mapreduce.kmeans-cost
expect_rc 0 "k-means calculator"
expect_out "100000" "k-means calculator: the combiner's saving n/(p·k)"
run calc paramserver.sync-time --set params_m=10
expect_rc 0 "PS calculator"
expect_out "640 ms" "PS calculator: a 10 M-parameter round"
run calc distributed.pipeline --set p=4 --set m=8
expect_rc 0 "pipeline calculator"
expect_out "27.27%" "pipeline calculator: the guide's bubble"
expect_out "GPU3" "pipeline calculator draws the schedule"
run calc inference.quantization --set bits=8
expect_rc 0 "quantization calculator"
expect_out "49.92 dB" "quantization calculator: INT8 SNR"
finish
