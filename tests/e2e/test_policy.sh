#!/usr/bin/env bash
# Attempt policies, exam mode and safe re-grades (the assessment issue):
# brute force of a choice question earns no more than one guess; penalties
# and points per try are applied; give-ups earn nothing and say so the same
# way in text and JSON; an exam hides every grade until it is submitted and
# takes one answer per question; a timed exam refuses answers once its
# time is up; a re-grade after a params change keeps an old right answer
# right, --dry-run writes nothing, and a grader failing on one attempt
# leaves the others re-graded.
. "$(dirname "$0")/lib.sh"

run pack import "$PACKS/policy"
expect_rc 0 "import the policy pack"

# ---- the policy is told before answering ----------------------------------------
run question test.policy:pick
expect_out "policy: 2 tries; only the first earns points" "choice default in words"
run --json question test.policy:ceiling
expect_jq .policy.tries 3 "own policy: tries"
expect_jq .policy.text "3 tries; each wrong try costs a third of the points" "own policy in words"
run --json question test.policy:efficiency
expect_jq '.policy.per_try | join(",")' "1,0.5,0.25" "points per try"
expect_jq .policy.tries 3 "as many tries as the list"

# ---- brute force of a choice question ---------------------------------------------
# alice answers a, then c (wrong, wrong): 0 points and closed; b is refused.
run answer test.policy:pick a
expect_rc 1 "first try wrong"
run answer test.policy:pick c
expect_rc 1 "second try wrong"
expect_out "no tries left: it is closed" "closed after the last try"
expect_out "solution: b) Amdahl's" "the solution is shown when it closes"
run answer test.policy:pick b
expect_rc 7 "a third try is refused"
expect_err "is closed" "says why"
expect_sql "SELECT count(*) FROM attempts WHERE question_id = 'pick'" 2 "the refused answer is not recorded"
# bob goes a, b: right on the second try earns nothing (exit 1 says so).
WARPBENCH_USER=bob run --json answer test.policy:pick a
WARPBENCH_USER=bob run --json answer test.policy:pick b
expect_rc 1 "right on try 2 earns nothing: not a success"
expect_jq .correct true "graded right"
expect_jq .available 0 "try 2 can earn nothing"
expect_jq .earned 0 "earns nothing"
expect_jq .question_score 0 "question score 0"
# carol guesses right at once: full marks.
WARPBENCH_USER=carol run answer test.policy:pick b
expect_rc 0 "right on try 1"
for who in alice bob carol; do
  WARPBENCH_USER=$who run --json progress test.policy
  case $who in carol) want=1 ;; *) want=0 ;; esac
  expect_jq '.questions[] | select(.question == "pick") | .score' "$want" "$who's score for pick"
done

# ---- penalties and points per try ------------------------------------------------
run answer test.policy:ceiling four
expect_rc 3 "unreadable"
expect_out "it is not a try" "unreadable answers cost no try"
run answer test.policy:ceiling 4
run --json answer test.policy:ceiling 5
expect_rc 0 "right on try 2, and it counts"
expect_jq .try 2 "the unreadable answer did not count"
expect_jq '.available * 1000 | round' 667 "try 2 can earn two thirds"
expect_jq '.question_score * 1000 | round' 667 "the question scores 2/3"
expect_jq .tries_left 1 "one try left"
run answer test.policy:efficiency 0.75
run answer test.policy:efficiency 75
expect_out "✓ correct on try 2: earns 0.5 of 1 point" "per-try list in text: the heading says what it earns"
expect_out "try 2 can earn 50% of the points; the question scores 0.5/1" "and why"
if grep -qF "1/1 point" <<<"$OUT"; then fail "a discounted try reads 1/1: $OUT"; else ok; fi
run --json progress test.policy
expect_jq '.questions[] | select(.question == "efficiency") | .score' 0.5 "progress follows the list"
expect_jq '.questions[] | select(.question == "efficiency") | .best_try' 2 "best try"
expect_jq '.lessons[] | select(.name == "test.policy:basics") | .lost_to_policy * 1000 | round' \
  833 "points lost to retries: 1/3 + 1/2"

# ---- give-ups: one rule everywhere -----------------------------------------------
run answer test.policy:speedup 3
run giveup test.policy:speedup
expect_rc 0 "give up"
expect_out "solution:" "the worked solution"
REF=$(WARPBENCH_USER=alice "$WB" --db "$DB" --json question test.policy:speedup | jq -r .prompt)
read -r F P < <(sed -E 's/.* ([0-9.]+) serial\. Its speedup on ([0-9]+) .*/\1 \2/' <<<"$REF")
RIGHT=$(awk -v f="$F" -v p="$P" 'BEGIN { printf "%.6f", 1 / (f + (1 - f) / p) }')
run --json answer test.policy:speedup "$RIGHT"
expect_rc 1 "right after a give-up: exit 1, it earns nothing"
expect_jq .correct true "graded right"
expect_jq .after_giveup true "flagged as after the give-up"
expect_jq .earned 0 "earns nothing"
run answer test.policy:speedup "$RIGHT"
expect_out "after your give-up: earns nothing" "text says the same"
run --json question test.policy:speedup
expect_jq .gave_up true "question: gave_up"
expect_jq '[.history[] | .after_giveup] | join(",")' "false,true,true" "history marks each attempt"
expect_jq '.solution | length > 0' true "the solution stays visible after a give-up"
# carol answers right first, then gives up: the earlier right answer counts.
WARPBENCH_USER=carol run answer test.policy:ceiling 5
WARPBENCH_USER=carol run giveup test.policy:ceiling
WARPBENCH_USER=carol run --json progress test.policy
expect_jq '.questions[] | select(.question == "ceiling") | .score' 1 "right before the give-up counts"

# ---- an exam hides grades until it is submitted --------------------------------------
run --json question test.policy:quiz.serial
expect_jq .hints_total 0 "no hints during an exam"
expect_jq .exam.open false "not started before the first answer"
run --json answer test.policy:quiz.serial 9
expect_rc 0 "any readable exam answer exits 0 (nothing is told)"
expect_jq .hidden true "hidden"
expect_jq .score null "no score"
expect_jq .correct null "no verdict"
expect_jq .accepted null "no accepted interval"
expect_jq .feedback "Recorded. Exam answers are graded when you submit the exam." "no feedback"
run answer test.policy:quiz.serial 10
expect_rc 7 "one answer per exam question"
expect_err "one answer per question" "says why"
run giveup test.policy:quiz.law
expect_rc 7 "no solutions during an exam"
run --json progress test.policy
expect_jq '.questions[] | select(.question == "quiz.serial") | .score' null "progress hides it"
expect_jq '.lessons[] | select(.name == "test.policy:quiz") | .score' 0 "the lesson earns nothing yet"
expect_jq '.lessons[] | select(.name == "test.policy:quiz") | .pending_exam' 1 "one answer pending"
run --json question test.policy:quiz.serial
expect_jq '.history[0].score' null "history hides the score too"
run answer test.policy:quiz.law b
run --json exam submit test.policy:quiz
expect_rc 0 "submit"
expect_jq .over true "over"
expect_jq .score 1 "quiz.law right, quiz.serial wrong"
expect_jq '[.rubric[] | .item] | join(",")' "theory.parallel,advanced.future" "rubric items"
# theory.parallel 5/10 (one of its two questions), advanced.future 5/5:
# 10 of the 15 rubric points it covers, 66.7 of 100: beginner+.
expect_jq '.rubric_total * 10 | round' 667 "rubric total scaled to 100"
expect_jq .level "beginner+" "the level"
run exam submit test.policy:quiz
expect_rc 7 "a second submit is refused"
run --json question test.policy:quiz.serial
expect_jq '.history[0].score' 0 "after submission the grade shows"
expect_jq .hints_total 1 "and the hints"
run answer test.policy:quiz.law a
expect_rc 7 "no answers after submission"

# ---- a timed exam --------------------------------------------------------------------
run answer test.policy:timed.one 2
expect_rc 2 "a timed exam must be started first"
expect_err "exam start timed" "says how"
run --json exam start test.policy:timed
expect_rc 0 "start"
expect_jq .time_limit_s 2 "the limit"
expect_jq '.seconds_left > 0' true "time left"
sleep 2.5
run answer test.policy:timed.one 2
expect_rc 7 "out of time"
expect_err "time ran out" "says why"
run --json exam status test.policy:timed
expect_jq .over true "over when the time ran out"
expect_jq .submitted false "not submitted by the student"

# ---- re-grades -----------------------------------------------------------------------
mkdir -p "$T/rg"
cat >"$T/rg/pack.lua" <<'EOF'
pack { id = "test.regrade", title = "Re-grade", version = "1.0.0", lessons = { "rg.lua" } }
EOF
cat >"$T/rg/rg.lua" <<'EOF'
lesson { id = "rg", title = "Re-grade" }
question {
  id = "shown", kind = "numeric", unit = "x",
  prompt = "A job is 20% serial. Its speedup on {p} processors?",
  params = function(rng) return { p = rng:pick({ 2, 4 }) } end,
  answer = function(p) return 1 / (0.2 + 0.8 / p.p) end,
  examples = { { params = { p = 4 }, answer = "2.5", score = 1 } },
}
question {
  id = "echo", kind = "text", prompt = "Say a word.", answer = "word",
  examples = { { "word", 1 } },
}
EOF
run pack import "$T/rg"
expect_rc 0 "import re-grade pack 1.0.0"
P1=$(WARPBENCH_USER=dana "$WB" --db "$DB" --json question test.regrade:shown | jq -r .prompt | grep -oE 'on [0-9]+' | grep -oE '[0-9]+')
RIGHT=$(awk -v p="$P1" 'BEGIN { printf "%.6f", 1 / (0.2 + 0.8 / p) }')
WARPBENCH_USER=dana run answer test.regrade:shown "$RIGHT"
expect_rc 0 "dana is right for her numbers"
WARPBENCH_USER=dana run answer test.regrade:echo boom
WARPBENCH_USER=erin run answer test.regrade:echo word
expect_sql "SELECT params_json FROM attempts WHERE question_id = 'shown'" "{\"p\":$P1}" "params stored"
expect_sql "SELECT count(*) FROM attempts WHERE grader_rev IS NULL" 0 "grader revision stored"
# 1.1.0 draws other numbers and its text grader fails on one answer.
sed -i 's/1.0.0/1.1.0/' "$T/rg/pack.lua"
sed -i 's/rng:pick({ 2, 4 })/rng:pick({ 8, 16 })/; s/answer = "word",/answer = "word", grade = function(a) if a:find("boom") then error("boom!") end; return a == "word" and 1 or 0 end,/' "$T/rg/rg.lua"
run pack import "$T/rg"
expect_rc 0 "import 1.1.0"
ROWS=$(sql "SELECT count(*) FROM attempts")
run --json pack regrade test.regrade --dry-run
expect_rc 4 "a failing grader makes the exit code say so"
expect_jq .checked 3 "all three re-graded"
expect_jq .failed 1 "one failed"
expect_jq .changed 0 "dana's right answer stays right against her numbers"
expect_jq .kept_shown_params 1 "graded against the numbers she was shown"
expect_jq '.attempts[] | select(.failed) | .user' dana "the failure names the user"
expect_jq '.attempts[] | select(.failed) | .question' echo "and the question"
expect_jq '.attempts[] | select(.failed) | .reason | test("boom!")' true "and the error"
expect_sql "SELECT count(*) FROM attempts" "$ROWS" "--dry-run writes nothing"
run --json pack regrade test.regrade --dry-run --new-params
expect_jq .changed 1 "against the new numbers her answer would be wrong"
expect_jq '.attempts[] | select(.failed | not) | .reason | test("new version draws")' true "says why"
run pack regrade test.regrade
expect_rc 4 "the real re-grade: one failed"
expect_out "1 failed" "reported"
expect_sql "SELECT count(*) FROM attempts" "$ROWS" "nothing changed: nothing written"
WARPBENCH_USER=dana run --json progress test.regrade
expect_jq '.questions[] | select(.question == "shown") | .score' 1 "still right in progress"

finish
