#!/usr/bin/env bash
# test_tui_plain.sh — the study screens in a plain terminal (tmux): LANG=C
# (ASCII) and NO_COLOR, at 80×24 and 200×50 (issue 26):
#  - under LANG=C a "…" reads "...": a cut feedback line in the mistakes
#    list ended "Check the for." ("±" drawn as "+/-" took the cut's dots), a
#    search snippet began ".can reach";
#  - under NO_COLOR the mistakes' kinds differ by their marks (h for a
#    give-up, ✗ for a wrong answer), not by colour, and no colour is sent.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

run init
expect_rc 0 "store created"
run answer amdahl.speedup 99
expect_rc 1 "a wrong answer (its feedback says ±1%)"
run giveup amdahl.ceiling-worked
expect_rc 0 "a give-up"

# ---- LANG=C at 80×24: the mistakes list --------------------------------------------
start ascii LANG=C LC_ALL=C
expect_screen ascii "Warpbench - lessons" "ASCII home"
keys ascii m
expect_screen ascii "Warpbench - mistakes" "m opens the mistakes"
expect_re ascii "^ +you answered 99: Not within the accepted tolerance \(\+/-1%\)" "'±' reads '+/-'"
line=$(cap ascii | grep -E "^ +you answered 99:" | sed 's/ *$//')
if grep -qE '\.\.\.$' <<<"$line"; then ok; else
  fail "the cut feedback does not end with '...' (a lone '.' reads as a full stop): [$line]"; fi
if [ "${#line}" -le 80 ]; then ok; else fail "the line is wider than the screen: [$line]"; fi
keys ascii q
expect_screen ascii "Warpbench - lessons" "back home"

# ---- LANG=C at 200×50: search snippets ----------------------------------------------
TM resize-window -t ascii -x 200 -y 50
keys ascii /
text ascii roofline
keys ascii Tab
expect_re ascii "[0-9]+ places hold \"roofline\"" "the search screen"
expect_re ascii "^ +\.\.\.[a-z].*roofline" "a snippet cut at its start begins with '...'"
if cap ascii | grep -qE "^ +\.[a-z]"; then
  fail "a snippet begins with a lone '.': $(cap ascii | grep -E "^ +\.[a-z]")"; else ok; fi
keys ascii Escape
expect_screen ascii "Warpbench - lessons" "Esc back home"
keys ascii Escape q
expect_exit ascii 0 "ASCII quit"

# ---- NO_COLOR at 80×24 and 200×50: marks, not colours --------------------------------
start nocolor LANG=C.UTF-8 NO_COLOR=1
expect_screen nocolor "Warpbench · lessons" "NO_COLOR home"
keys nocolor m
expect_re nocolor "^ . h The ceiling with 20% serial work " "the give-up marked h"
expect_re nocolor "^ . ✗ Amdahl speedup \(your numbers\) " "the wrong answer marked ✗"
TM resize-window -t nocolor -x 200 -y 50
expect_re nocolor "^ +you answered 99: Not within the accepted tolerance \(±1%\)\. Check the formula and the arithmetic\.$" \
  "at 200×50 the feedback is whole"
if TM capture-pane -e -p -t nocolor | grep -qE $'\e\\[([0-9;]*;)?3[0-7](;[0-9;]*)?m'; then
  fail "NO_COLOR screen has colour codes"; else ok; fi
keys nocolor q q
expect_exit nocolor 0 "NO_COLOR quit"

finish
