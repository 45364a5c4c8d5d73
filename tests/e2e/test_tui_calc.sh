#!/usr/bin/env bash
# test_tui_calc.sh — the calculator screen of the real terminal UI, driven in
# tmux against a temporary store: from the Amdahl lesson's page open its
# calculator (listed under the page like a question), see S(p) = 2.5x for
# f = 0.2 and p = 4, change p by typing and by stepping and see the outputs
# follow, be refused an out-of-range and an unreadable value (old value
# kept), restore the defaults, then list every calculator from home (`C`),
# and draw one under LANG=C in ASCII only. Last, a lab's worker processes
# started from the TUI (whose lab thread blocks SIGTERM and friends) run
# with an empty signal mask and SIGINT ignored.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

# ---- from the lesson page ---------------------------------------------------------
start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "home"
keys main /
text main amdahl
expect_screen main "/ amdahl" "search line"
keys main Enter Enter
expect_screen main "page 1/" "lesson open"
for _ in $(seq 8); do
  cap main | grep -qF "= Amdahl and Gustafson" && break
  keys main n
  sleep 0.2
done
expect_re main "^ [0-9]  = Amdahl and Gustafson +calculator$" "the calculator listed under its page"
expect_screen main "Questions and calculators" "heading names both"
n=$(cap main | sed -nE 's/^ ([0-9])  = Amdahl and Gustafson.*/\1/p' | head -1)
keys main "${n:-9}"
expect_screen main "Warpbench · calc amdahl.laws" "calculator opened by its number"
expect_re main "serial fraction f +0\.2 +0 to 1$" "input f with its range"
expect_re main "processors p +4 +1 to 100000, whole$" "input p"
expect_re main "one-processor time T\(1\) +100 s " "input with its unit"
expect_screen main "share of the one-processor time that cannot run in parallel" "help of the selected input"
expect_re main "Amdahl speedup S\(p\) +2\.5x$" "f=0.2 p=4 gives 2.5x"
expect_re main "run time T\(p\) +40 s$" "T(p) with its unit"
expect_screen main "┌─ timeline " "the diagram in a box"
expect_screen main "│ P4 |........|pppppppp|" "the diagram verbatim"

# Type p = 8: every output follows as it is typed, before Enter.
keys main Down Enter C-u
text main 8
expect_screen main "outputs follow as you type; Enter keeps the value, Esc the old one" "editing"
expect_re main "Amdahl speedup S\(p\) +3\.333x$" "recomputed on the keystroke, before Enter"
text main 0
expect_re main "Amdahl speedup S\(p\) +4\.762x$" "p = 80 while typing"
keys main BSpace
expect_re main "Amdahl speedup S\(p\) +3\.333x$" "back to p = 8 with Backspace"
keys main Enter
expect_re main "processors p +8 " "p set to 8"
expect_re main "Amdahl speedup S\(p\) +3\.333x$" "S(8) = 3.333x"
expect_re main "run time T\(p\) +30 s$" "T(8) = 30 s"
# Step with Right and Left.
keys main Right
expect_re main "Amdahl speedup S\(p\) +3\.462x$" "Right: p = 9"
expect_re main "processors p +9 " "p stepped to 9"
keys main Left
expect_re main "Amdahl speedup S\(p\) +3\.333x$" "Left: back to p = 8"
# Typing a digit starts editing f.
keys main Up
text main 0.1
keys main Enter
expect_re main "serial fraction f +0\.1 " "f typed directly"
expect_re main "Amdahl speedup S\(p\) +4\.706x$" "S = 4.706x for f=0.1 p=8"
# Typing then Esc keeps the old value and its outputs.
keys main Enter C-u
text main 0.5
expect_re main "Amdahl speedup S\(p\) +1\.778x$" "f = 0.5 while typing"
keys main Escape
expect_re main "serial fraction f +0\.1 " "Esc: the old value"
expect_re main "Amdahl speedup S\(p\) +4\.706x$" "Esc: the old outputs"
# Refused values keep the old one (a value outside the range computes nothing).
keys main Enter C-u
text main 2
# never outputs for a value other than the one in the field (issue 26)
expect_screen main "'2' is outside 0 to 1" "out of range: said while typing"
if cap main | grep -qE "Amdahl speedup S\(p\) +[0-9]"; then
  fail "outputs shown for another value than the field's 2: $(cap main)"; else ok; fi
keys main Enter
expect_screen main "serial fraction f: 2 is outside 0 to 1 (kept 0.1)" "out of range refused"
keys main Escape
expect_re main "serial fraction f +0\.1 " "old value kept after a refusal"
expect_re main "Amdahl speedup S\(p\) +4\.706x$" "outputs unchanged after a refusal"
keys main Enter C-u
text main abc
keys main Enter
expect_screen main "'abc' is not a number" "unreadable value refused"
keys main Escape
expect_re main "serial fraction f +0\.1 " "old value kept"
# A comma decimal (issue 26): "0,11" showed the outputs of f = 0 beside it.
keys main Enter C-u
text main "0,11"
expect_re main "serial fraction f +0,11" "the field reads 0,11"
expect_screen main "'0,11' is not a number: write a decimal point, not a comma" "the comma refused visibly"
if cap main | grep -qE "Amdahl speedup S\(p\) +[0-9]"; then
  fail "outputs shown beside '0,11': $(cap main)"; else ok; fi
keys main C-u
text main "0.11"
expect_re main "Amdahl speedup S\(p\) +4\.5[0-9]*x$" "0.11 with a point computes (p = 8)"
keys main Escape
expect_re main "Amdahl speedup S\(p\) +4\.706x$" "Esc: the outputs of f = 0.1 again"
# Defaults.
keys main d
expect_screen main "every input back to its default" "defaults restored"
expect_re main "Amdahl speedup S\(p\) +2\.5x$" "2.5x again"
# q goes back to the lesson, on the same page with the calculator selected.
keys main q
expect_screen main "Questions and calculators" "back on the lesson page"

# ---- every calculator, from home ------------------------------------------------------
keys main q
expect_screen main "Warpbench · lessons" "home again"
keys main C
expect_screen main "Warpbench · calculators" "the list of calculators"
expect_re main "▶ Amdahl and Gustafson +Amdahl's law and scalability$" "first one selected, with its lesson"
rows=$(cap main | grep -cE "^   [^ ].* {2,}[A-Z].*[a-z]$")
if [ "$rows" -ge 5 ]; then ok; else fail "the list shows $rows other calculators:"$'\n'"$(cap main)"; fi
keys main Down Enter
expect_re main "Warpbench · calc [a-z]" "second calculator opened from the list"
if cap main | grep -qF "calc amdahl.laws"; then fail "Down did not move in the list"; else ok; fi
expect_re main "input +value +allowed" "its form"
expect_screen main "Outputs" "its outputs"
keys main q
expect_screen main "Warpbench · calculators" "q: back to the list"
keys main q
expect_screen main "Warpbench · lessons" "q: back home"

# ---- a lab started from the TUI: workers unblock signals ---------------------------------
open_selftest_form main
keys main Enter C-u
text main 400
keys main Enter
keys main Down Down Enter C-u
text main 1
keys main Enter
keys main s
expect_screen main "started 1 worker process" "lab running with one worker"
pid=$(wb_pid main)
kid=$(pgrep -P "$pid" | head -1)
if [ -n "$kid" ]; then
  blk=$(awk '/^SigBlk:/ {print $2}' "/proc/$kid/status")
  ign=$(awk '/^SigIgn:/ {print $2}' "/proc/$kid/status")
  if [ "$((16#$blk))" -eq 0 ]; then ok; else fail "worker's signal mask is $blk, expected empty"; fi
  if [ $(( 16#$ign & 2 )) -ne 0 ]; then ok; else fail "worker does not ignore SIGINT (SigIgn $ign)"; fi
else
  fail "no worker process seen under $pid"
fi
keys main q
expect_screen main "cancel the run? y/n" "q asks before cancelling"
keys main y
expect_screen main "run cancelled" "lab cancelled"
keys main q q q
expect_exit main 0 "quit"

# ---- ASCII under LANG=C ----------------------------------------------------------------------
start ascii LANG=C LC_ALL=C
expect_screen ascii "Warpbench - lessons" "ASCII home"
keys ascii C
expect_screen ascii "Warpbench - calculators" "ASCII list"
keys ascii Enter
expect_screen ascii "+- timeline " "ASCII box"
expect_re ascii "Amdahl speedup S\(p\) +2\.5x$" "ASCII outputs"
if cap ascii | grep -qP '[^\x00-\x7f]'; then fail "non-ASCII characters under LANG=C"; else ok; fi
keys ascii q q q
expect_exit ascii 0 "ASCII quit"

finish
