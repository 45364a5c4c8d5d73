#!/usr/bin/env bash
# Issue 24's attacks on design grading, through the real binary, against the
# built-in course's design questions that are declared as claims: nonsense
# frames, keyword lists with function words, reversed claims without a listed
# negator, negations the negator list does not hold ("fail to", "it is a myth
# that", "it is false that"), questions, and 16 KiB of word salad all score at
# most a quarter; an honest answer in the test's own words scores at least
# 75 %, terse expert notes at least half, and the two correct answers the old
# rubrics docked score full marks. Each answer is a new student's first try.
. "$(dirname "$0")/lib.sh"

n=0
# answer_frac QID TEXT: grades TEXT for a new student; FRAC = score/max.
# The assessment lesson is an exam: its answers are graded on submit, and
# the grade is read from the question's history.
answer_frac() {
  n=$((n + 1))
  WARPBENCH_USER="s$n" run --json answer "warpbench.core:$1" "$2"
  if [ "$(jqv '.hidden')" = "true" ]; then
    WARPBENCH_USER="s$n" run exam submit assessment
    WARPBENCH_USER="s$n" run --json question "warpbench.core:$1"
    FRAC=$(jqv '(.history[0].score / .points * 1000 | round) / 1000')
  else
    FRAC=$(jqv '(.score / .max * 1000 | round) / 1000')
  fi
}
at_most() { # QID WHAT LIMIT TEXT
  answer_frac "$1" "$4"
  if awk -v f="$FRAC" -v l="$3" 'BEGIN { exit !(f <= l) }'; then ok; else fail "$1 $2 scores $FRAC (> $3): $OUT"; fi
}
at_least() { # QID WHAT LIMIT TEXT
  answer_frac "$1" "$4"
  if awk -v f="$FRAC" -v l="$3" 'BEGIN { exit !(f >= l) }'; then ok; else fail "$1 $2 scores $FRAC (< $3): $OUT"; fi
}

run init
expect_rc 0 "init"

Q=assessment.cpu-gpu
at_most $Q "nonsense frames" 0.25 "My cat likes the throughput. Bananas are latency-oriented on Sundays.
The weather was SIMT warps yesterday. Our neighbour paints thousands of cores every morning.
My cat likes the memory bandwidth. Bananas are latency hiding on Sundays. The weather was
matrix multiplication and tensor cores yesterday."
at_most $Q "keyword list with a function word" 0.25 "throughput, latency, thousands of cores,
SIMT, warps, lockstep, HBM, bandwidth, latency hiding, occupancy, switching warps, matrix
multiplication, GEMM, tensor cores"
at_most $Q "reversed, no listed negator" 0.25 "GPUs are designed for low latency, unlike CPUs which
target throughput. CPUs run thousands of simple cores in SIMT warps, and CPUs hide memory
latency by switching between warps, while GPUs rely on big caches."
at_most $Q "negation outside the list" 0.25 "It is a myth that GPUs are built for throughput. It is
false that GPUs run thousands of simple cores in SIMT warps. GPUs fail to hide latency by
switching warps. It is a myth that GPUs have far more memory bandwidth than CPUs. It is false
that neural networks are dominated by matrix multiplication."
at_most $Q "questions" 0.25 "Are GPUs built for throughput rather than latency? Do they run
thousands of simple cores in SIMT warps? Do they hide memory latency by switching warps? Do
they have more memory bandwidth? Is deep learning mostly matrix multiplication on tensor cores?"
# 16 KiB of the rubric's words and function words in a fixed random order:
# one long run without a full stop, graded within the grader's limits
salad=$(awk 'BEGIN { srand(24); split("GPUs CPUs throughput latency cores SIMT warps the of is to and in with by for a that on bandwidth memory matrix multiplication tensor hide switching thousands simple lockstep HBM", w, " ");
  s = ""; while (length(s) < 16300) s = s w[int(rand() * 30) + 1] " "; printf "%s", s }')
at_most $Q "16 KiB of word salad" 0.25 "$salad"
if [ "$FRAC" != "null" ] && [ -n "$FRAC" ]; then ok; else fail "the salad was not graded: $OUT"; fi
# 16 KiB of ONE grammatical sentence, every clause holding rubric terms (so
# every part is handed to the parser): graded, within the grader's limits,
# and earning no more than its first clauses' worth
long=$(awk 'BEGIN { s = "GPUs are built for throughput"; while (length(s) < 16300) s = s ", and the GPU hides memory latency by switching warps"; printf "%s.", s }')
at_most $Q "16 KiB of one long sentence" 0.75 "$long"
if [ "$FRAC" != "null" ] && [ -n "$FRAC" ]; then ok; else fail "the long sentence was not graded: $OUT"; fi
at_least $Q "an honest answer in the test's own words" 0.75 "A CPU spends its transistors on a few
fast cores with big caches and branch prediction, so that one thread finishes quickly: it is
built for low latency. A GPU is built for throughput instead: it has thousands of simple cores
that run threads in groups of 32, called warps, in lockstep (SIMT). When a warp waits for
memory, the GPU switches to another warp, which hides the latency, and its HBM gives it far
more memory bandwidth than a CPU. Deep learning is mostly matrix multiplication, which GPUs
run on tensor cores."
at_least $Q "terse expert notes" 0.5 "- CPU: built for latency, GPU: built for throughput
- GPU runs thousands of simple cores in SIMT warps
- GPU hides latency by switching warps
- HBM gives the GPU far more memory bandwidth
- DL is mostly GEMM, which runs on tensor cores"

# the correct answers the phrase rubrics docked
at_least assessment.conv-coalescing "describes the uncoalesced pattern it was asked about" 1 \
"Map threadIdx.x to the column index, so consecutive threads of a warp read consecutive
addresses along a row of the row-major image, and pad every row to a pitch that keeps it
aligned to 128 bytes. Each block loads its tile of the input plus a halo of K - 1 rows and
columns into shared memory with coalesced loads, and each input value is reused for up to
K x K outputs. If instead threadIdx.x indexed the rows, a warp would read down a column and
touch 32 separate 32-byte sectors instead of 4, moving up to eight times the bytes it needs."
at_least gpu.transpose-design "so that both become coalesced" 1 \
"The reads are coalesced, but the writes out[x][y] are strided: each warp's 32 writes land in
32 different rows, 32 sectors per request instead of 4. I would stage a 32 x 32 tile in shared
memory, read it in by rows and write it out by rows, so that both the global reads and the
global writes become coalesced. I would pad the tile to 32 x 33 to avoid bank conflicts.
I would profile it with Nsight Compute and compare its bandwidth with a plain copy kernel,
the ceiling for a transpose."

# a planted instructor pack whose rubric is bare phrases fails pack check,
# naming the attack that beat it and what it matched
cp -r "$PACKS/e2e" "$T/planted"
sed -i '/attacks = "report",/d' "$T/planted/basics.lua"
run pack check "$T/planted"
expect_rc 4 "a rubric of bare phrases fails pack check"
expect_err "question design: attack 'each concept's terms in nonsense frames': earns" "names the attack"
expect_err "it matched sharding (\"My cat likes the shard partition\")" "says what matched"

# a new instructor's trial: a hyphenated claim subject holds in both
# spellings (and its negation does not), and a phrase or near group in a
# sentence without a function word earns nothing. Each sample's person
# score is what the grader must give (tolerance 0).
mkdir "$T/trial"
cat >"$T/trial/pack.lua" <<'LUA'
pack { id = "t.trial", title = "Trial", version = "1.0.0", description = [[trial]],
  lessons = { "q.lua" } }
LUA
cat >"$T/trial/q.lua" <<'LUA'
lesson { id = "trial", title = "Trial" }
question {
  id = "trial.allreduce", kind = "design", points = 1, attacks = "report",
  prompt = "What does the all-reduce overlap in data-parallel training?",
  concepts = { { name = "overlap", points = 1, feedback = "Say what overlaps.",
    claims = { { subject = { "all-reduce" }, relation = { "overlap*" } } } } },
  model = "The all-reduce overlaps the backward pass.",
  samples = {
    { answer = "The all-reduce overlaps the backward pass.", score = 1, tol = 0 },
    { answer = "The All Reduce overlaps the backward pass.", score = 1, tol = 0 },
    { answer = "The all reduce overlaps the backward pass.", score = 1, tol = 0 },
    { answer = "The all-reduce does not overlap the backward pass.", score = 0, tol = 0 },
    { answer = "The all reduce does not overlap the backward pass.", score = 0, tol = 0 },
  },
}
question {
  id = "trial.match", kind = "design", points = 1, attacks = "report",
  prompt = "How does a GPU hide memory latency?",
  concepts = { { name = "switching", points = 1, match = { "warp switching" }, feedback = "Say it." } },
  model = "The GPU hides latency by warp switching.",
  samples = {
    { answer = "warp switching", score = 0, tol = 0 },
    { answer = "warp switching, throughput.", score = 0, tol = 0 },
    { answer = "The GPU hides latency by warp switching.", score = 1, tol = 0 },
  },
}
question {
  id = "trial.near", kind = "design", points = 1, attacks = "report",
  prompt = "How does a GPU hide memory latency?",
  concepts = { { name = "switching", points = 1, near = { { "switch*", "warp*" } }, feedback = "Say it." } },
  model = "The scheduler switches to another warp when one stalls.",
  samples = {
    { answer = "warps switching", score = 0, tol = 0 },
    { answer = "warp switching, throughput.", score = 0, tol = 0 },
    { answer = "The scheduler switches to another warp when one stalls.", score = 1, tol = 0 },
  },
}
LUA
run pack check "$T/trial"
expect_rc 0 "hyphenated subjects in both spellings, bare phrases: every sample graded as a person did ($ERR)"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
