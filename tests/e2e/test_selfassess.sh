#!/usr/bin/env bash
# Self-assessment on the course's 100-point rubric and the progress report
# that puts it beside the graded scores: `selfassess --set` (and its usage
# errors), the interactive prompts on a terminal, latest rating wins, the
# graded roll-up per rubric item, the calibration gap, totals, levels and
# "study next"; and the assessment lesson's fixed-number questions answered
# with the course's numbers (full marks) and a typical mistake (not).
. "$(dirname "$0")/lib.sh"

run pack import "$PACKS/e2e"
expect_rc 0 "import test pack"

# ---- selfassess --set -------------------------------------------------------
run selfassess --set theory.parallel=8 --set advanced.cost=4.5
expect_rc 0 "two ratings"
expect_out "stored 2 ratings for alice" "says what it stored"
expect_out "advanced.cost          4.5/5" "advanced items are out of 5"
expect_out "over 2 of 12 items" "partial self-assessment has no level yet"
expect_sql "SELECT count(DISTINCT created_at) FROM selfassess" "1" "one set, one time stamp"

# Usage errors: exit 2 naming the item and its range; nothing is stored.
run selfassess --set theory.gpux=7
expect_rc 2 "unknown item"
expect_err 'unknown rubric item "theory.gpux"' "names the unknown item"
expect_err "theory.scheduling" "lists the valid items"
run selfassess --set theory.gpu=11
expect_rc 2 "out of range"
expect_err "theory.gpu is scored from 0 to 10" "names the range"
run selfassess --set advanced.future=6
expect_rc 2 "advanced items are out of 5"
expect_err "advanced.future is scored from 0 to 5" "names the advanced range"
for bad in "theory.gpu=-1" "theory.gpu=abc" "theory.gpu=" "theory.gpu" "=5" "theory.gpu=7x"; do
  run selfassess --set "$bad"
  expect_rc 2 "--set '$bad'"
done
run selfassess --set theory.gpu=3 --set theory.gpu=4
expect_rc 2 "an item twice"
expect_err "theory.gpu is set twice" "says which item is repeated"
run selfassess --set theory.gpu=3 --bogus
expect_rc 2 "unknown option"
run selfassess </dev/null
expect_rc 2 "no --set and no terminal"
expect_err "--set ITEM=SCORE" "says how to use it in a script"
expect_sql "SELECT count(*) FROM selfassess" "2" "refused ratings are not stored (not even the good half)"

# ---- graded beside self-rated ------------------------------------------------
run answer test.e2e:speedup 2.5
expect_rc 0 "right answer"
run answer test.e2e:runtime 40
expect_rc 0 "right answer"
run answer test.e2e:bound a
expect_rc 1 "wrong answer"

# The e2e pack has 6 one-point questions, all tagged theory.parallel:
# 2 right of 6 -> 10 x 2/6 = 3.333 graded; on the 3 answered, 2 right ->
# 10 x 2/3 = 6.667; self 8 -> gap +1.333 (compared with the answered
# questions, not with the 3 not tried yet): over-confident.
run --json progress test.e2e
expect_rc 0 "progress --json"
item='.course.items[] | select(.item == "theory.parallel")'
expect_jq "$item | .questions" "6" "questions tagged"
expect_jq "$item | .answered" "3" "answered (a wrong answer counts as answered)"
expect_jq "$item | (.graded * 1000 | round)" "3333" "graded = max x earned / points"
expect_jq "$item | .self" "8" "latest self-rating"
expect_jq "$item | (.graded_answered * 1000 | round)" "6667" "on the answered questions"
expect_jq "$item | (.gap * 1000 | round)" "1333" "gap = self - graded on the answered questions"
expect_jq "$item | .rated_at | test(\"^20[0-9][0-9]-\")" "true" "rating is dated"
expect_jq '.course.items[] | select(.item == "advanced.cost") | .self' "4.5" "advanced.cost self"
expect_jq '.course.items[] | select(.item == "advanced.cost") | .questions' "0" "no question of this pack evidences it"
expect_jq '.course.items[] | select(.item == "theory.gpu") | .self' "null" "unrated item"
expect_jq '.course.items | length' "12" "the whole rubric"
expect_jq '[.course.items[].max] | add' "100" "the rubric totals 100"
expect_jq '(.course.graded_total * 1000 | round)' "3333" "graded total"
expect_jq .course.graded_level "review" "below 60 is review"
expect_jq .course.rated_items "2" "rated items"
expect_jq .course.self_total "12.5" "self total"
expect_jq .course.self_level "null" "no self level until every item is rated"
expect_jq .course.compared_items "1" "only rated items with answers are compared"
expect_jq '(.course.calibration_gap * 1000 | round)' "1333" "calibration gap, on the answered"
expect_jq '.course.study_next[0].lesson' "basics" "study next"
expect_jq '.course.study_next[0].title' "Basics for the tests" "study next has the title"
expect_jq '(.course.study_next[0].unearned * 1000 | round)' "6667" "unearned rubric points"
expect_jq '.course.study_next[0].item' "theory.parallel" "the item it lifts"
expect_jq '.course.study_next[0].lost' "1" "the points the wrong answer lost"
# What progress printed before is still there.
expect_jq '.total[0].score' "2" "plain total kept"
expect_jq '.rubric[0].name' "theory.parallel" "per-rubric tallies kept"
expect_jq '.lessons[0] | has("cbm_mark")' "false" "no CBM mark for a pack without CBM"

run progress test.e2e
expect_rc 0 "progress text"
expect_out "self-rating beside your graded score" "course section"
expect_out "theory.parallel         8.0/10   3.3/10       3/6   6.7/10  +1.3 over-confident" "item line"
expect_out "graded total: 3.3/100, level review" "graded level"
expect_out "self-rated so far: 12.5 points over 2 of 12 items" "self total"
expect_out "1. test.e2e:basics Basics for the tests: your answers lost 1.0 point on 1 question (warpbench mistakes)" \
  "study next: where the answers lost points first"
expect_out "course rubric items" "old sections kept"

# A later rating replaces the earlier one; rating every item gives a level.
run selfassess --set theory.parallel=3
expect_rc 0 "re-rate"
run --json progress test.e2e
expect_jq '.course.items[] | select(.item == "theory.parallel") | .self' "3" "latest rating wins"
expect_jq '.course.items[] | select(.item == "theory.parallel") | (.gap * 1000 | round)' "-3667" "gap now negative"
sets=()
for it in theory.gpu theory.parallel theory.memory theory.scheduling practice.profiling \
          practice.optimization practice.design practice.deployment; do sets+=(--set "$it=9"); done
for it in advanced.novel advanced.integration advanced.cost advanced.future; do sets+=(--set "$it=4"); done
run --json selfassess "${sets[@]}"
expect_rc 0 "every item"
expect_jq '.stored | length' "12" "twelve stored"
expect_jq .self_total "88" "self total"
expect_jq .self_level "advanced" "80-89 is advanced"
run progress test.e2e
expect_out "self-rated total: 88.0/100, level advanced" "self-rated level"
expect_sql "SELECT count(*) FROM selfassess" "15" "every rating is kept, dated"

# ---- interactive, on a terminal (util-linux script gives it one) --------------
if command -v script >/dev/null 2>&1; then
  DB2="$T/tty.db"
  # theory.gpu: 7; theory.parallel: 12 (out of range) then 6; theory.memory:
  # 'abc' (not a number) then Enter (skip); the rest: Enter.
  printf '7\n12\n6\nabc\n\n\n\n\n\n\n\n\n\n\n' |
    script -qec "'$WB' --db '$DB2' selfassess" /dev/null >"$T/tty.out" 2>&1
  grep -q "out of range: this item is scored from 0 to 10" "$T/tty.out" && ok || fail "re-asks after out of range: $(cat "$T/tty.out")"
  grep -q '"abc" is not a number' "$T/tty.out" && ok || fail "re-asks after a non-number"
  grep -q "stored 2 ratings" "$T/tty.out" && ok || fail "stores the answered items: $(cat "$T/tty.out")"
  got=$(sqlite3 -batch -noheader "$DB2" "SELECT group_concat(item || '=' || score, ' ') FROM (SELECT * FROM selfassess ORDER BY item)")
  [ "$got" = "theory.gpu=7.0 theory.parallel=6.0" ] && ok || fail "interactive ratings: '$got'"
  # Enter keeps the last rating; q stops without storing anything.
  printf '\n2\nq\n' | script -qec "'$WB' --db '$DB2' selfassess" /dev/null >"$T/tty.out" 2>&1
  grep -q "last 7" "$T/tty.out" && ok || fail "shows the last rating"
  grep -q "nothing was stored" "$T/tty.out" && ok || fail "q stops: $(cat "$T/tty.out")"
  [ "$(sqlite3 -batch -noheader "$DB2" "SELECT count(*) FROM selfassess")" = "2" ] && ok || fail "q stored nothing"
else
  fail "no 'script' (util-linux, Debian's essential bsdutils): the interactive prompts cannot be tested"
fi

# ---- the assessment lesson (an exam): the course's numbers get full marks -------
# One answer per question and no grade until the exam is submitted, so one
# student gives the course's answers and another the typical mistakes; the
# grades and feedback are read from each question's history afterwards.
WARPBENCH_USER=ada run --json answer warpbench.core:assessment.matmul-ceiling 10
expect_rc 0 "an exam answer is recorded"
expect_jq .score null "and not graded in the open"
WARPBENCH_USER=ada run answer warpbench.core:assessment.matmul-ceiling 1.11
expect_rc 7 "one answer per question"
for qa in "drf-jobs 5" "mixed-precision-bytes 16" "gpu-table b"; do
  WARPBENCH_USER=ada run answer "warpbench.core:assessment.${qa% *}" "${qa#* }"
  expect_rc 0 "ada answers ${qa% *}"
done
for qa in "matmul-ceiling 1.11" "drf-jobs 8" "mixed-precision-bytes 8"; do
  WARPBENCH_USER=bo run answer "warpbench.core:assessment.${qa% *}" "${qa#* }"
done
WARPBENCH_USER=bo run answer warpbench.core:assessment.cpu-gpu "GPUs have thousands of cores and are good at matrix multiplication."
expect_rc 0 "a design answer in the exam"
for who in ada bo; do
  WARPBENCH_USER=$who run exam submit assessment
  expect_rc 0 "$who submits"
done
# grade WHO QID: the score of WHO's answer to QID, then its feedback.
hist() { WARPBENCH_USER=$1 run --json question "warpbench.core:assessment.$2"; }
for q in matmul-ceiling drf-jobs mixed-precision-bytes gpu-table; do
  hist ada $q
  expect_jq '.history[0].score == .points' true "ada: $q gets full marks"
done
hist bo matmul-ceiling
expect_jq .history[0].score 0 "parallel fraction in the denominator"
expect_jq '.history[0].feedback | test("SERIAL")' "true" "says which fraction"
hist bo drf-jobs
expect_jq .history[0].score 0 "DRF: all GPUs to one team"
hist bo mixed-precision-bytes
expect_jq .history[0].score 0 "the course's 2x does not apply to model states"
expect_jq '.history[0].feedback | test("master")' "true" "explains the FP32 copies"
hist bo cpu-gpu
expect_jq '.history[0].score < .points' true "a partial design answer"
expect_jq '.history[0].feedback | test("SIMT")' "true" "names a missed concept"
WARPBENCH_USER=ada run --json exam status assessment
expect_jq .over true "the exam is over"
expect_jq '.level | length > 0' true "with a level"

finish
