#!/usr/bin/env bash
# Issue 26 through the CLI on the built-in course: `mistakes` lists wrong and
# given-up questions newest first, with what went wrong and a new variant to
# try; a right answer clears one (the history, --all, keeps it); `search`
# finds pages, questions and calculators and says where; `formulas` gives
# the sheet, each formula with its page and calculator.
. "$(dirname "$0")/lib.sh"

run init
expect_rc 0 "store created"
run answer amdahl.speedup 99
expect_rc 1 "a wrong answer"
run giveup amdahl.ceiling-worked
expect_rc 0 "a give-up"
run --json mistakes
expect_rc 0 "mistakes"
expect_jq .open 2 "two to review"
expect_jq '[.mistakes[].question] | join(",")' "amdahl.ceiling-worked,amdahl.speedup" "newest first"
expect_jq '.mistakes[1].why' wrong "the wrong answer"
expect_jq '.mistakes[1].answer' 99 "with the answer given"
expect_jq '.mistakes[1].retry_variant != .mistakes[1].variant' true "a new variant to try"
expect_jq '.mistakes[0].why' gave_up "the give-up"
run mistakes
expect_out "2 questions to review, newest first" "text: the count"
expect_out "try again on new numbers: warpbench question warpbench.core:amdahl.speedup --variant 2" "text: how to try again, on a new variant"
v=$(run --json mistakes; jqv '.mistakes[1].retry_variant')
run --json question amdahl.speedup --variant "$v"
expect_rc 0 "the new variant shown"
expect_jq .solution null "no solution before the new try"
run --json question amdahl.speedup
expect_jq .solution null "nor on the variant answered wrong (tries are left)"
R=$(run --json giveup amdahl.speedup; jqv .reference | awk '{print $1}')
run --json question amdahl.speedup
expect_jq '.solution != null' true "the give-up shows the solution of the variant given up on"
run --json question amdahl.speedup --variant "$v"
expect_jq .solution null "and not of the new variant, still to be tried"
run answer amdahl.speedup "$R"
run --json mistakes
expect_jq '[.mistakes[].question] | index("amdahl.speedup")' null "a right answer clears it"
run --json mistakes --all
expect_jq '[.mistakes[] | select(.question == "amdahl.speedup")] | length > 0' true "--all keeps the history"

run --json search roofline
expect_rc 0 "search"
expect_jq '.count > 10' true "many places hold roofline"
expect_jq '[.hits[].kind] | unique | join(",")' "calculator,page,question" "pages, questions and calculators"
expect_jq '[.hits[] | select(.kind == "page" and .title == "The roofline model")] | length' 1 "the roofline page"
expect_jq '.hits[0].where | test("page [0-9]+: ")' true "where it was found"
run search roofline
expect_out "places hold \"roofline\"" "text"
# topics read as words, not raw tags (issue 26: "topics: roofline,arithmetic-intensity")
run --json search sync-async
expect_jq '[.hits[] | select(.snippet | startswith("topics: "))] | length > 0' true "a hit in the topics"
expect_jq '[.hits[] | select(.snippet | startswith("topics: ")) | .snippet | test("sync async")] | all' true \
  "the topic as words"
expect_jq '[.hits[] | select(.snippet | startswith("topics: ")) | .snippet | test("[a-z]-[a-z]|,[^ ]")] | any' false \
  "no raw tag (hyphenated, comma without a space) in the topics"
run --json search zzzqqq
expect_jq .count 0 "nothing found"

run --json formulas
expect_rc 0 "formulas"
expect_jq '.count >= 15' true "the sheet"
expect_jq '.formulas[] | select(.name | test("^Amdahl")) | .calculator' amdahl.laws "Amdahl's calculator"
expect_jq '.formulas[] | select(.name | test("^Amdahl")) | .page' 2 "Amdahl's page"
expect_jq '[.formulas[] | select(.name | test("Karp-Flatt|all-reduce|roofline|Little"; "i"))] | length >= 4' true \
  "Karp-Flatt, the all-reduces, the roofline, Little's law"
run formulas
expect_out "S(p) = 1 / (f + (1 - f)/p)" "text: the formula"

finish
