#!/usr/bin/env bash
# test_tui.sh — drives the real terminal UI inside tmux against a temporary
# store: open, find the Amdahl lesson, answer a numeric question wrongly then
# rightly and see the feedback, find both attempts in the store, give up
# (stored; a later answer is marked after the give-up), shrink the
# window below 80×24 and grow it back, run the `selftest` lab and see its
# chart move, cancel it (no child process left), and check that NO_COLOR,
# LANG=C, Ctrl-C and SIGTERM all work and give the terminal back (exit 0), and
# that a crash signal restores the terminal before it kills.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

# ---- open, navigate, answer ----------------------------------------------------
start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "home"
expect_screen main "Amdahl's law and scalability" "home lists the lessons"
keys main /
text main amdahl
expect_screen main "/ amdahl" "search line"
keys main Enter Enter
expect_screen main "Speedup and efficiency" "lesson page 1"
expect_screen main "page 1/" "page number"
keys main n
expect_screen main "page 2/" "next page"
expect_screen main "Speedup with 20% serial on 4 processors" "questions after page 2"
keys main 1
expect_screen main "Answer:" "question screen"
expect_screen main "What speedup does Amdahl's law give on 4 processors?" "prompt"
text main 4
keys main Enter
expect_screen main "not right: 0/1 point" "wrong answer graded"
expect_screen main "4 is the ideal, linear speedup" "feedback for 4"
if cap main | grep -qF "accepted:"; then fail "the interval shows before a right answer"; else ok; fi
keys main C-u
text main 2.5
keys main Enter
expect_screen main "correct on try 2: earns 0.9 of 1 point" "right answer graded: the heading says what try 2 earns"
expect_screen main "try 2 can earn 90% of the points; the question scores 0.9/1" "and why"
if cap main | grep -qF "1/1 point"; then fail "a discounted try reads 1/1 point"; else ok; fi
expect_screen main "accepted: 2.475 to 2.525" "accepted interval once right"
expect_screen main "Attempts (2)" "attempt history"
# the list says what each try earns, as the headline does (issue 26: "✓ 1/1" beside 0.9)
expect_re main "#2 +✓ 0\.9/1 " "try 2 in the list earns 0.9/1"
expect_re main "#1 +✗ 0/1 " "try 1 in the list"
if cap main | grep -qE "#2 +✓ 1/1"; then fail "the list shows try 2's own grade 1/1"; else ok; fi
expect_sql "SELECT count(*), sum(a.correct), group_concat(a.answer, ',') FROM attempts a
            JOIN users u ON u.id = a.user_id
            WHERE u.name = 'alice' AND a.question_id = 'amdahl.speedup-worked'" \
  "2|1|4,2.5" "both attempts stored"
expect_sql "SELECT page FROM positions WHERE lesson_id = 'amdahl'" "1" "reading position stored"

# ---- give up: asked, shown and stored; a later answer is marked after it ----------
# After a right answer the line still has the keys: "g" is text, not a give-up.
text main g
expect_screen main "Answer: 2.5g" "a letter typed after a right answer stays text"
keys main BSpace Tab g
expect_screen main "give up and see the solution? y/n" "g asks first"
keys main y
expect_screen main "gave up (recorded)" "give-up recorded"
expect_screen main "solution:" "solution shown after giving up"
keys main PgDn
expect_screen main "gave up 1 time" "give-up in the attempt history"
expect_sql "SELECT count(*), min(g.variant) FROM giveups g JOIN users u ON u.id = g.user_id
            WHERE u.name = 'alice' AND g.question_id = 'amdahl.speedup-worked'" \
  "1|1" "give-up stored"
expect_screen main "how to get there:" "the way to the solution after giving up"
keys main i C-u
text main 2.5
keys main Enter
expect_screen main "correct, after your give-up: earns nothing" "a right answer after the give-up says it earns nothing"
keys main Tab PgDn
expect_screen main "(after give-up) 2.5" "later attempt marked after the give-up"
expect_sql "SELECT count(*) FROM attempts a WHERE a.question_id = 'amdahl.speedup-worked'
            AND a.id > (SELECT last_attempt FROM giveups)" "1" "attempt after the give-up stored"

# ---- too small, and back --------------------------------------------------------
TM resize-window -t main -x 60 -y 20
expect_screen main "terminal too small: have 60×20, need 80×24" "too-small screen"
TM resize-window -t main -x 80 -y 24
expect_screen main "Speedup with 20% serial on 4 processors" "screen back after growing"
if cap main | grep -qF "too small"; then fail "too-small message left behind"; else ok; fi

# ---- the selftest lab -----------------------------------------------------------
keys main q
expect_screen main "page 2/" "back to the lesson"
keys main q
expect_screen main "Warpbench · lessons" "back home"
open_selftest_form main
# steps = 200 at 50 ms (10 s) with 2 workers: long enough to cancel midway.
keys main Enter C-u
text main 200
keys main Enter
expect_screen main "200 " "steps set"
keys main Down Down Enter C-u
text main 2
keys main Enter
keys main s
expect_screen main "running" "lab running"
expect_screen main "started 2 worker processes" "lab log"
if wait_re main "step [0-9]+ of 200" 10; then ok; else fail "no progress shown: $(cap main)"; fi
one=$(cap main | sed -n '3,17p')
changed=no
for _ in $(seq 100); do
  sleep 0.05
  [ "$(cap main | sed -n '3,17p')" != "$one" ] && { changed=yes; break; }
done
if [ "$changed" = yes ]; then ok; else fail "the chart area did not change while the lab ran"; fi
pid=$(wb_pid main)
kids=$(pgrep -P "$pid" | wc -l)
if [ "$kids" -eq 2 ]; then ok; else fail "expected 2 worker processes while running, saw $kids"; fi
keys main q
expect_screen main "cancel the run? y/n" "q asks before cancelling"
keys main n
expect_screen main "q/Esc cancel" "n keeps it running"
if cap main | grep -qF "run cancelled"; then fail "n cancelled the run"; else ok; fi
keys main q y
expect_screen main "run cancelled" "cancel returns to the form"
expect_screen main "interval_ms" "form again after cancel"
kids=$(pgrep -P "$pid" | wc -l)
if [ "$kids" -eq 0 ]; then ok; else fail "$kids child process(es) left after cancel"; fi
expect_sql "SELECT lab, status FROM lab_runs ORDER BY id DESC LIMIT 1" "selftest|cancelled" \
  "cancelled run recorded"

# ---- quit restores the terminal ----------------------------------------------------
keys main q q q
expect_exit main 0 "q from home quits with 0"

# ---- NO_COLOR: the same screen with attributes only -------------------------------
start nocolor LANG=C.UTF-8 NO_COLOR=1
expect_screen nocolor "Warpbench · lessons" "NO_COLOR home"
if TM capture-pane -e -p -t nocolor | grep -qE $'\e\\[([0-9;]*;)?3[0-7](;[0-9;]*)?m'; then
  fail "NO_COLOR screen has colour codes"
else ok; fi
keys nocolor q
expect_exit nocolor 0 "NO_COLOR quit"

# ---- LANG=C: ASCII only; Ctrl-C quits cleanly --------------------------------------
start ascii LANG=C LC_ALL=C
expect_screen ascii "Warpbench - lessons" "ASCII home"
expect_screen ascii "Amdahl's law and scalability" "ASCII lessons"
if cap ascii | grep -qP '[^\x00-\x7f]'; then fail "non-ASCII characters under LANG=C"; else ok; fi
keys ascii C-c
expect_exit ascii 0 "Ctrl-C quits with 0"

# ---- SIGTERM: leaves cleanly too ----------------------------------------------------
start term LANG=C.UTF-8
expect_screen term "Warpbench · lessons" "home before SIGTERM"
kill -TERM "$(wb_pid term)"
expect_exit term 0 "SIGTERM leaves cleanly"

# ---- a crash signal: the terminal comes back, the signal still kills -------------
start crash LANG=C.UTF-8
expect_screen crash "Warpbench · lessons" "home before SIGSEGV"
kill -SEGV "$(wb_pid crash)"
expect_exit crash 139 "SIGSEGV is re-raised after restoring the terminal"

finish
