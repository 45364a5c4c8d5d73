#!/usr/bin/env bash
# The built-in course's coverage and its newer lessons:
#   - `pack check --rubric` counts the questions, points and lessons per
#     course rubric item, and every item of the built-in course has at least
#     12 questions and 15 points, in more than one lesson; a pack with a
#     misspelt item shows it as "not a course rubric item";
#   - the scheduling lesson's worked examples and the DRF calculator, and its
#     variant questions answered from the numbers the student is shown;
#   - the frontiers lesson, answered the same way;
#   - worked examples of the course material that became questions of their
#     own (f = 0.15 on 10 processors and its ceiling, 64 ms of communication,
#     175 B FP32 ring and tree all-reduce), and the content slips fixed
#     (Little's law, PTQ/QAT, the named A100).
. "$(dirname "$0")/lib.sh"

CORE="$WB_SOURCE_DIR/lessons/packs/core"

right() {
  run --json answer "$1" "$2"
  expect_rc 0 "$1: '$2' is right"
  expect_jq .correct true "$1: '$2' graded correct"
}

wrong() {
  run --json answer "$1" "$2"
  expect_rc 1 "$1: '$2' is wrong"
  expect_jq .valid true "$1: '$2' was read"
  if [ -n "${3:-}" ]; then
    expect_jq "(.feedback // \"\") | test(\"$3\"; \"i\")" true "$1: feedback for '$2'"
  fi
}

# prompt QID: sets P to alice's prompt of QID (one line).
prompt() {
  run --json question "$1"
  expect_rc 0 "$1 shown"
  P=$(jqv .prompt | tr '\n' ' ')
}
# num REGEX: the first number after the text REGEX matches in P.
num() { grep -oE "$1 *[0-9]+(\.[0-9]+)?" <<<"$P" | head -1 | grep -oE "[0-9]+(\.[0-9]+)?$"; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

# ---- Rubric coverage ------------------------------------------------------
run --json pack check --rubric "$CORE"
expect_rc 0 "the built-in course passes pack check --rubric"
expect_jq '[.rubric[] | select(.course)] | length' 12 "all twelve course items are listed"
expect_jq '[.rubric[] | select(.course | not)] | length' 0 "no rubric name outside the course"
expect_jq '[.rubric[] | select(.questions < 12) | .item] | join(",")' "" "every item has 12 questions or more"
expect_jq '[.rubric[] | select(.points < 15) | .item] | join(",")' "" "every item has 15 points or more"
expect_jq '[.rubric[] | select(.lessons < 2) | .item] | join(",")' "" "every item spans more than one lesson"
expect_jq '.rubric[] | select(.item == "theory.scheduling") | .rubric_max' 10 "scheduling is a 10-point item"
expect_jq '.rubric[] | select(.item == "advanced.future") | .rubric_max' 5 "future is a 5-point item"
# The counts are the pack's: the sum over items is at least the questions
# tagged with a course item.
expect_jq '(.rubric | map(.questions) | add) >= .questions' true "items sum over the questions"

run pack check --rubric "$CORE"
expect_rc 0 "text form"
expect_out "rubric item" "a header line"
if grep -qE '^theory\.scheduling +[0-9]+ +[0-9.]+ +[0-9]+$' <<<"$OUT"; then ok; else fail "a scheduling row: $OUT"; fi
# Without --rubric, no table.
run pack check "$CORE"
expect_rc 0 "plain check"
if grep -q "rubric item" <<<"$OUT"; then fail "plain check prints the table"; else ok; fi

# A pack with a misspelt item fails the check, naming it (the assessment
# issue: a typo must not send points to a phantom item) ...
mkdir -p "$T/typo"
cat >"$T/typo/pack.lua" <<'LUA'
pack { id = "test.typo", title = "Typo", version = "1", lessons = { "l.lua" } }
LUA
cat >"$T/typo/l.lua" <<'LUA'
lesson { id = "l", title = "L", rubric = { "theory.gpu" } }
question { id = "q1", kind = "numeric", prompt = "One?", answer = 1, points = 2 }
question { id = "q2", kind = "numeric", prompt = "Two?", answer = 2,
           rubric = { "practice.profilng", "theory.gpu" } }
LUA
run pack check --rubric "$T/typo"
expect_rc 4 "a pack with a misspelt rubric item fails the check"
expect_err "unknown rubric item 'practice.profilng' (did you mean 'practice.profiling'?)" \
  "the misspelt name is named, with the item meant"
# ... while an item the pack declares as its own is counted on its own
# line, marked as not a course item.
sed -i 's/lessons = { "l.lua" } }/lessons = { "l.lua" }, rubric = { "practice.profilng" } }/' "$T/typo/pack.lua"
run pack check --rubric "$T/typo"
expect_rc 0 "a pack's own rubric item passes"
expect_out "practice.profilng" "the pack's own item is listed"
expect_out "(not a course rubric item)" "and marked"
if grep -qE '^theory\.gpu +2 +3 +1$' <<<"$OUT"; then ok; else fail "theory.gpu: 2 questions, 3 points, 1 lesson: $OUT"; fi
run --json pack check --rubric "$T/typo"
expect_jq '.rubric[] | select(.item == "practice.profilng") | .course' false "json: not a course item"
expect_jq '.rubric[] | select(.item == "practice.profiling") | .questions' 0 "the real item got nothing"

# ---- Scheduling: worked examples and the calculator -----------------------
run lessons
expect_rc 0 "course imported"
right scheduling.drf-worked 4
wrong scheduling.drf-worked 3 "static split"
right scheduling.drf-idle-worked 4
wrong scheduling.drf-idle-worked 20 "in use"
right scheduling.drf-properties "a b e"
right scheduling.gang-deadlock a
right scheduling.sharing-isolation "a b d"
right scheduling.predictive a

run calc scheduling.drf
expect_rc 0 "DRF calculator with its defaults"
if grep -qE 'team A: jobs +4$' <<<"$OUT" && grep -qE 'idle GPUs +4$' <<<"$OUT"; then ok
else fail "the page's example: 4 jobs each, 4 idle GPUs: $OUT"; fi
expect_out "A B A B A B A B" "allocation order"
run calc scheduling.drf --set gpus=16 --set cores=128 --set mem=0 --set ag=2 --set ac=4 --set am=0 \
  --set bg=1 --set bc=16 --set bm=0
expect_rc 0 "the assessment's DRF example"
if grep -qE 'team A: jobs +5$' <<<"$OUT" && grep -qE 'team B: jobs +6$' <<<"$OUT"; then ok
else fail "A gets 5 (as assessment.drf-jobs says), B fills the leftover with a 6th: $OUT"; fi

# ---- Scheduling: variants, answered from the shown numbers ----------------
prompt scheduling.replicas
q=$(num "handle"); mu=$(num "at most"); u=$(num "more than")
right scheduling.replicas "$(calc "int($q / ($u / 100 * $mu)) + 1")"
wrong scheduling.replicas "$(calc "$q / $mu == int($q / $mu) ? $q / $mu : int($q / $mu) + 1")" "100%"

prompt scheduling.mig-gpus
s=$(grep -oE "^[0-9]+" <<<"$P")
right scheduling.mig-gpus "$(calc "int(($s + 6) / 7)")"
wrong scheduling.mig-gpus "$(calc "int(($s + 7) / 8)")" "7 MIG instances"

prompt scheduling.gang-reserve
n=$(num "A"); t=$(num "one every")
right scheduling.gang-reserve "$t*$n*($n-1)/2/60"
wrong scheduling.gang-reserve "$t*$n*($n-1)/2" "GPU-minutes"

prompt scheduling.ckpt-interval
c=$(num "takes"); h=$(num "every")
right scheduling.ckpt-interval "sqrt(2*$c*$h*60)"
wrong scheduling.ckpt-interval "sqrt($c*$h*60)" "factor 2"

prompt scheduling.preempt-lost
g=$(num "on"); tau=$(num "every"); r=$(num "needs")
right scheduling.preempt-lost "$g*($tau/2+$r)/60"
wrong scheduling.preempt-lost "$g*($tau+$r)/60" "half an interval"

# ---- Frontiers: variants and choices --------------------------------------
prompt frontiers.attn-scores
b=$(num "batch of"); h=$(num "with")
s=$(grep -oE "[0-9]+ tokens" <<<"$P" | grep -oE "^[0-9]+")
right frontiers.attn-scores "$b*$h*$s*$s*2/1e9"
wrong frontiers.attn-scores "$b*$s*$s*2/1e9" "heads"

prompt frontiers.cuda-graph
k=$(num "launches"); l=$(num "costs")
right frontiers.cuda-graph "($k-1)*$l"
wrong frontiers.cuda-graph "$k*$l" "one launch"

right frontiers.exact "a c d"
right frontiers.generations "a b c"
right frontiers.memory-wall a
right frontiers.backend a

# ---- Worked examples that became questions of their own --------------------
right amdahl.speedup-15-worked 4.26
wrong amdahl.speedup-15-worked 6.67 "ceiling"
right amdahl.ceiling-15-worked 6.67
wrong amdahl.ceiling-15-worked 1.18 "parallel share"
right paramserver.comm-1m-worked 64
wrong paramserver.comm-1m-worked 32 "one transfer"
right paramserver.ring-175b-fp32-worked 14
wrong paramserver.ring-175b-fp32-worked 6.99 "FP16"
right paramserver.tree-175b-fp32-worked 140
wrong paramserver.tree-175b-fp32-worked 70 "half"

# ---- Content slips ----------------------------------------------------------
run show inference --page 1
expect_rc 0 "inference page 1"
expect_out "on average" "Little's law gives the mean in flight"
if grep -q "always has" <<<"$OUT"; then fail "Little's law still says 'always'"; else ok; fi
run --json answer inference.ptq-qat d
expect_rc 1 "ptq-qat: d is false"
expect_jq '(.feedback // "") | test("24 dB")' true "and the feedback says why"
run show memory
expect_out "A100 80GB SXM" "the memory lesson names the A100 it uses"
expect_out "1935 GB/s" "and the guide's PCIe figure"

finish
