#!/usr/bin/env bash
# A student answers graded questions through the real binary: right, wrong,
# invalid, with units and expressions; every valid and invalid attempt is in
# the store; the built-in course is imported on first use.
. "$(dirname "$0")/lib.sh"

run lessons
expect_rc 0 "first use"
expect_out "warpbench.core" "built-in pack imported without being asked"
expect_err "imported the built-in course" "first use says what it did"
[ -f "$DB" ] && ok || fail "store file created"

run pack import "$PACKS/e2e"
expect_rc 0 "import test pack"

run --json answer test.e2e:speedup 2.5
expect_rc 0 "right answer exits 0"
expect_jq .correct true "right answer"
expect_jq .score 1 "right answer score"
expect_jq .max 1 "max"
expect_jq .question speedup "question id"
expect_jq '.accepted != null' true "interval shown once right"

run --json answer speedup '1/(0.2+0.8/4)'
expect_rc 0 "expression"
expect_jq .correct true "expression graded"

run --json answer speedup 1.18
expect_rc 1 "wrong answer exits 1"
expect_jq .correct false "wrong answer"
expect_jq .score 0 "wrong answer score"
expect_jq '.feedback | test("serial")' true "feedback for the swapped fraction"
expect_jq .accepted null "interval hidden while wrong"

for bad in abc "" 1e999 3,5 NaN; do
  run --json answer speedup "$bad"
  expect_rc 3 "invalid '$bad' exits 3"
  expect_jq .valid false "invalid '$bad'"
  expect_jq '.feedback | length > 0' true "invalid '$bad' is explained"
done

run --json answer runtime "40000 ms"
expect_rc 0 "unit conversion"
run --json answer runtime "40 MB"
expect_rc 3 "wrong dimension is unreadable"

run --json answer bound b
expect_rc 0 "choice by letter"
run --json answer design "we shard the parameters"
expect_rc 1 "design partial"
expect_jq .score 0.5 "design half"
expect_jq '.feedback | test("asynchron|barrier")' true "names the missed concept"

run answer nosuch 1
expect_rc 5 "unknown question"

# The store holds every attempt, invalid ones flagged, none lost.
expect_sql "select count(*) from attempts" 12 "all attempts stored"
expect_sql "select count(*) from attempts where valid = 0" 6 "invalid attempts flagged"
expect_sql "select count(*) from attempts where question_id='speedup' and correct=1" 2 "correct ones"

run --json progress
expect_rc 0 "progress"
expect_jq '.lessons[] | select(.name=="test.e2e:basics") | .answered' 4 "answered questions"

# Another student sees none of alice's attempts.
OUT=$("$WB" --db "$DB" --user bob --json progress 2>/dev/null)
expect_jq '.lessons[] | select(.name=="test.e2e:basics") | .answered' 0 "bob starts fresh"
finish
