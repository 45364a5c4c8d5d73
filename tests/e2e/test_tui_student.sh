#!/usr/bin/env bash
# test_tui_student.sh — a student's flow in the real terminal UI at 80×24
# (tmux), with no surprises:
#  - home: Esc never quits (it clears a filter); q quits and the footer says so;
#  - lesson: a second Space at the end of a page goes on to the next page;
#  - question: the mode is always on screen; give-up asks y/n; a question with
#    no try left and an exam answer already given offer no answer line;
#  - n / N move to the next question and the next unanswered one; v shows a
#    new variant that shares the question's tries;
#  - give-ups follow one rule in the TUI, the CLI and JSON: a question answered
#    right before the give-up keeps its ✓ and counts, one answered only after
#    it is marked "h" (with help) and earns nothing.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

# Some history made with the CLI first (the same store).
run init
expect_rc 0 "store created"
run answer amdahl.time-worked "40 s"
expect_rc 0 "time-worked answered right"
run giveup amdahl.time-worked
expect_rc 0 "then given up"
run giveup amdahl.ceiling-worked
expect_rc 0 "ceiling-worked given up first"
run answer amdahl.ceiling-worked 5
expect_rc 1 "a right answer after the give-up earns nothing (exit 1)"
expect_out "correct, after your give-up: earns nothing" "the heading says so"
run answer amdahl.karp-flatt-trend a
run answer amdahl.karp-flatt-trend c
expect_out "no tries left" "karp-flatt-trend closed after its 2 tries"
run answer assessment.matmul-ceiling 10
expect_out "recorded" "an exam answer recorded"

# The rule in progress, text and JSON.
run progress
expect_out "amdahl.time-worked  (answered right before the give-up: it counts)" "right before: counts"
expect_out "amdahl.ceiling-worked  (answered with help, after the give-up: earns nothing)" "after: with help"
if grep -q "time-worked.*answered with help" <<<"$OUT"; then fail "right-before listed as with help"; else ok; fi
run --json progress
expect_jq '.gave_up[] | select(.question == "amdahl.time-worked") | .standing' right_before "JSON: right before"
expect_jq '.gave_up[] | select(.question == "amdahl.time-worked") | .counts' true "JSON: it counts"
expect_jq '.gave_up[] | select(.question == "amdahl.ceiling-worked") | .standing' with_help "JSON: with help"

# ---- home: Esc never quits ----------------------------------------------------------
start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "home"
expect_re main "q quit" "the footer shows q quit"
keys main Escape
expect_screen main "this is the first screen: q quits" "Esc on home says how to quit"
expect_screen main "Warpbench · lessons" "still home after Esc"
keys main /
text main amd
expect_screen main "/ amd" "typing a search"
keys main Escape
expect_screen main "Warpbench · lessons" "Esc clears the search, still home"
keys main /
text main combiner
expect_re main "^ / combiner +[0-9]+ lessons?" "the whole word typed and the list filtered"
keys main Enter
expect_re main "[0-9]+ lessons?(, [0-9]+ places? \\(Tab\\))?$" "a kept filter"
expect_screen main "MapReduce and k-means" "the filter keeps the lesson whose pages teach the combiner"
if cap main | grep -qF "Amdahl's law and scalability"; then
  fail "the filter 'combiner' still lists Amdahl's law"
else ok; fi
keys main Escape
expect_screen main "filter cleared" "Esc clears a kept filter"
expect_screen main "Amdahl's law and scalability" "every lesson shows again (the first is back)"
expect_screen main "Warpbench · lessons" "and home stays open"

# ---- lesson: Space to the end of the page, then on -------------------------------
keys main /
text main amdahl
keys main Enter Enter
expect_screen main "page 1/" "the Amdahl lesson"
turned=no
for _ in $(seq 30); do
  keys main Space
  if wait_for main "page 2/" 1; then turned=yes; break; fi
done
if [ "$turned" = yes ]; then ok; else fail "Space never reached page 2: $(cap main)"; fi
expect_screen main "page 2 of" "says the page turned"

# ---- the lesson list follows the give-up rule ------------------------------------
expect_re main "^ [0-9]  ✓ Parallel run time " "answered right before the give-up: ✓"
keys main n
expect_screen main "page 3/" "page 3"
expect_re main "^ [0-9]  h The ceiling with 20% serial work .*help 0/1$" "answered only after the give-up: h"
keys main p

# ---- question: the mode on screen, give-up asked ----------------------------------
expect_screen main "Speedup with 20% serial on 4 processors" "page 2's questions"
keys main 1
expect_screen main "✎ typing: Enter grades, Tab for commands" "typing mode shown"
text main 4
keys main Enter
expect_screen main "not right" "graded"
text main hq
expect_screen main "Answer: 4hq" "letters typed are the answer's"
keys main C-u Tab
expect_screen main "commands: i type · h hint · g give up · n next" "command mode shown"
keys main g
expect_screen main "give up and see the solution? y/n" "g asks"
keys main n
expect_screen main "commands: i type" "n: not given up"
expect_sql "SELECT count(*) FROM giveups WHERE question_id = 'amdahl.speedup-worked'" 0 "nothing recorded"

# ---- next, next unanswered, new variant ------------------------------------------
keys main n
expect_screen main "question: Parallel run time" "n: the next question"
keys main Tab N
expect_screen main "question: Amdahl speedup (your numbers)" "N: the next unanswered one"
keys main Tab
expect_re main "· v new variant$" "a question with numbers offers a new variant"
keys main v
expect_screen main "variant 2: new numbers, the same tries (0 of 5 used)" "v says the tries are shared"
expect_re main "numeric · 1 pt · variant 2" "variant 2 shown"

# ---- a closed question: no answer line ------------------------------------------
for _ in $(seq 30); do
  cap main | grep -qF "question: Reading the Karp-Flatt metric" && break
  keys main Tab n
  sleep 0.1
done
expect_screen main "question: Reading the Karp-Flatt metric" "reached the closed question"
expect_screen main "Closed: no tries left; the solution is below" "no answer line on a closed question"
if cap main | grep -qE "^ Answer:|▶ \( \)"; then fail "a closed question offers an answer: $(cap main)"; else ok; fi
expect_screen main "commands: n next question" "only moving on is offered"
keys main q
expect_screen main "page " "back to the lesson"
keys main q
expect_screen main "Warpbench · lessons" "home"

# ---- an exam answer already given: no answer line -----------------------------------
keys main Escape
expect_screen main "filter cleared" "the old filter cleared"
keys main /
text main assessment
keys main Enter Enter
expect_screen main "The assessment" "the exam lesson"
for _ in $(seq 6); do
  cap main | grep -qF "A 90% parallel matrix multiply" && break
  keys main n
  sleep 0.1
done
n=$(cap main | sed -nE 's/^ ([0-9]) .*A 90% parallel matrix multiply.*/\1/p' | head -1)
keys main "${n:-1}"
expect_screen main "Answered: your answer is recorded; it is graded when you submit the exam" "an exam answer given: no answer line"
if cap main | grep -qE "^ Answer:"; then fail "an answered exam question offers an answer line"; else ok; fi
keys main q q
expect_screen main "Warpbench · lessons" "home again"
keys main q
expect_exit main 0 "q quits from home"

finish
