#!/usr/bin/env bash
# test_tui_labresults.sh — a finished lab run in the real terminal UI (tmux):
# at 80×24 the charts keep a readable height and the results are a table
# that scrolls through every figure the run stored (values with units for
# people, cut labels ending in "…"), the key footer stays; the same at
# 200×50; the memory lab's stride chart has a log axis with ticks at powers
# of two; without colour (NO_COLOR) and in ASCII (LANG=C) the series of a
# chart differ by their marker characters; in LANG=C "≤" reads "<=".
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

# results_rows NAME: the rows of the results box now on screen, one per line.
results_rows() {
  cap "$1" | sed -n '/┌─ results/,/└─/p' | sed '1d;$d' |
    sed 's/^│ //; s/ ↓ │ .*$//; s/ ↑ │ .*$//; s/ │ │ .*$//; s/ *$//'
}
# results_title NAME: "results 1–7 of 29" (or "results" when all fit).
results_title() { cap "$1" | grep -oE "results( [0-9]+[–-][0-9]+ of [0-9]+)?" | head -1; }
# collect_results NAME: scrolls the results from the top to the end, one row
# at a time; prints every row seen, once.
collect_results() {
  local s=$1 seen="" title
  keys "$s" g
  wait_re "$s" "results( 1[–-]| *─)" 5
  for _ in $(seq 200); do
    seen+=$(results_rows "$s")$'\n'
    title=$(results_title "$s")
    if ! grep -qE "[–-]" <<<"$title"; then break; fi
    if [ "$(sed -E 's/.*[–-]([0-9]+) of ([0-9]+)/\1 \2/' <<<"$title" | awk '{print ($1 == $2)}')" = 1 ]; then
      break
    fi
    keys "$s" j
    for _ in $(seq 100); do [ "$(results_title "$s")" != "$title" ] && break; sleep 0.02; done
  done
  printf '%s' "$seen" | sed '/^ *$/d' | sort -u
}

# ---- amdahl at 80×24 --------------------------------------------------------------
start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "home"
open_lab_form main amdahl "Amdahl speedup on your machine" "work_ms"
set_field main P 2
set_field main work_ms 20
set_field main reps 2
keys main s
expect_screen main "questions using this run" "the run finished" 60
expect_re main "amdahl  done \(run [0-9]+ recorded\)" "the header says done and recorded"
# the footer stays, with its keys
expect_re main "^ Tab questions  Enter answer  r run again  q back" "the key footer stays"
# charts keep a readable height: each chart of the page has at least 4 plot rows
plot_rows=$(cap main | grep -cE "^ *[0-9.]*[km]?┤|^ +│")
if [ "$plot_rows" -ge 4 ]; then ok; else fail "charts have $plot_rows plot rows: $(cap main)"; fi
expect_screen main "time per trial against p" "charts titled for people, not by id"
expect_screen main "speedup against p" "the speedup chart on the first page"
if cap main | grep -qE "karp_flatt|stride_bw"; then fail "a raw chart id shows"; else ok; fi
run_id=$(sql "SELECT max(id) FROM lab_runs")
n_figs=$(sql "SELECT summary_json FROM lab_runs WHERE id = $run_id" | jq 'length')
expect_re main "results 1[–]7 of $n_figs|results 1–[0-9]+ of $n_figs" "the table says how many rows there are"
rows=$(collect_results main)
n_rows=$(grep -c . <<<"$rows")
if [ "$n_rows" -eq "$n_figs" ]; then ok; else
  fail "80×24: scrolled through $n_rows result rows, the run stored $n_figs:"$'\n'"$rows"; fi
grep -qE "…" <<<"$rows" && ok || fail "no cut label ends with …: $rows"
grep -qE " [0-9.]+ ms$" <<<"$rows" && ok || fail "no time in ms: $rows"
grep -qE "[0-9.]+ ×$" <<<"$rows" && ok || fail "no ratio as 'N ×': $rows"
if grep -qE "[0-9]e[-+][0-9]" <<<"$rows"; then fail "a number in exponent form: $rows"; else ok; fi
expect_re main "results [0-9]+–$n_figs of $n_figs" "scrolled to the last row"
# Tab moves Up/Down to the questions
keys main Tab Down
expect_screen main "Your serial fraction at p" "the questions that use the run"

# ---- the same run at 200×50 ---------------------------------------------------------
TM resize-window -t main -x 200 -y 50
expect_re main "^ Tab questions  Enter answer  r run again  q back" "footer at 200×50"
keys main Tab
rows=$(collect_results main)
n_rows=$(grep -c . <<<"$rows")
if [ "$n_rows" -eq "$n_figs" ]; then ok; else
  fail "200×50: scrolled through $n_rows result rows, the run stored $n_figs:"$'\n'"$rows"; fi
expect_screen main "Karp-Flatt serial fraction" "four charts a page at 200×50"
expect_screen main "efficiency S(p)/p" "the efficiency chart too"
# Side by side, a legend at the right edge of one chart stays apart from the
# next chart's title: "── median time per trial speedup against p" read as
# one line (issue 26). A title stands at the start of its row or after three
# blanks (a legend's own "── Karp-Flatt serial fraction" is not a title).
titles='time per trial against p|speedup against p|efficiency S\(p\)/p|Karp-Flatt serial fraction'
run_on=$(cap main | sed -e 's/─/-/g' -e 's/┄/-/g' | grep -E "[^ -] {1,2}($titles)")
if [ -z "$run_on" ]; then ok; else fail "200×50: a chart title runs on from what stands before it: $run_on"; fi
expect_re main "per trial {3,}speedup against p" "the time chart's legend, then blanks, then the speedup chart's title"
TM resize-window -t main -x 80 -y 24

# ---- the memory lab's stride sweep: a log axis with power-of-two ticks -------------
keys main q q
expect_screen main "Labs run real experiments" "back to the list of labs"
keys main q
open_lab_form main memory "Locality on your CPU" "array_mib"
set_field main part stride
set_field main array_mib 16
keys main s
expect_screen main "questions using this run" "the stride sweep finished" 60
expect_screen main "bandwidth against stride" "the stride chart, titled"
expect_re main "^ +4 +16 +64 +256 " "stride ticks at powers of two, evenly spaced"
# ---- coalescing without a GPU: the header says it is the CPU analog, and why ----------
keys main q q
expect_screen main "Labs run real experiments" "back to the list of labs"
keys main q
open_lab_form main coalescing "Memory coalescing on the GPU" "cpu_reps"
set_field main cpu_mib 1
set_field main cpu_reps 1
set_field main offset_max 4
set_field main stride_max 4
keys main s
expect_screen main "questions using this run" "the coalescing run finished" 60
device=$(sql "SELECT json_extract(summary_json, '$.device') FROM lab_runs ORDER BY id DESC LIMIT 1")
if [ "$device" = cpu ]; then
  expect_re main "^ ⚠ no GPU: .*" "the header says there was no GPU, and why"
  expect_screen main "CPU analog" "and that this is the CPU analog"
else
  ok # a GPU ran the lab: there is no note to show
fi
keys main q q q q
expect_exit main 0 "quit"

# ---- NO_COLOR: each series its own marker ---------------------------------------------
start nocolor LANG=C.UTF-8 NO_COLOR=1
expect_screen nocolor "Warpbench · lessons" "NO_COLOR home"
open_lab_form nocolor amdahl "Amdahl speedup on your machine" "work_ms"
set_field nocolor P 2
set_field nocolor work_ms 20
set_field nocolor reps 2
keys nocolor s
expect_screen nocolor "questions using this run" "NO_COLOR run finished" 60
expect_screen nocolor "─* measured speedup" "the measured series' marker in the legend"
expect_screen nocolor "─o Amdahl" "Amdahl's marker differs"
expect_screen nocolor "─x Gustafson" "Gustafson's too, not '+' like the ticks (issue 26)"
plot=$(cap nocolor | sed -n '5,13p' | cut -c41-)
if grep -q "o" <<<"$(tr -d 'a-np-zA-Z' <<<"$plot")"; then ok; else fail "no 'o' marker on the speedup plot: $plot"; fi
if TM capture-pane -e -p -t nocolor | grep -qE $'\e\\[([0-9;]*;)?3[0-7](;[0-9;]*)?m'; then
  fail "NO_COLOR screen has colour codes"; else ok; fi
keys nocolor q q q q
expect_exit nocolor 0 "NO_COLOR quit"


# ---- kmeans at 80×24: numbers, yes/no and labels as people read them (issue 26) ----
start km LANG=C.UTF-8
expect_screen km "Warpbench · lessons" "home"
open_lab_form km kmeans "Labs run real experiments" "max_iter"
expect_re km "(▶|>)? *tol +0\.0001 +at least 0" "tol's range, not '0 to 1e+30'"
if cap km | grep -qE "1e\+30"; then fail "a range shows 1e+30: $(cap km)"; else ok; fi
set_field km n 20000
set_field km scale_iters 0
set_field km workers 2
keys km s
expect_screen km "questions using this run" "kmeans finished" 120
rows=$(collect_results km)
grep -qE "^converged: no centre moved[a-z …]* +(yes|no)$" <<<"$rows" && ok ||
  fail "converged is not yes/no: $rows"
grep -qE "^measured under load[a-z …]* +(yes|no)$" <<<"$rows" && ok || fail "noisy is not yes/no: $rows"
grep -qE "^combiner on +yes$" <<<"$rows" && ok || fail "combiner is not yes: $rows"
if grep -qE "[0-9]e[-+][0-9]" <<<"$rows"; then fail "a number in exponent form: $rows"; else ok; fi
# cut labels end after a whole word: "FNV-1a of the final centr…" was cut mid-word
if grep -qE "centr…|centre…|tas…|ite…" <<<"$rows"; then
  fail "a label cut mid-word: $(grep -E "centr…|tas…|ite…" <<<"$rows")"; else ok; fi
grep -qE "^worker time in map tasks( [a-z]+)*… " <<<"$rows" && ok || fail "worker time label: $rows"
grep -qE "^FNV-1a of the final( [a-z]+)?… " <<<"$rows" && ok || fail "the hash's label not cut at a word: $rows"
keys km q q q
expect_screen km "Warpbench · lessons" "home"
keys km q
expect_exit km 0 "quit after kmeans"
# ---- a failed run says why, whole, at 80×24 (issue 26) ------------------------------
# paramserver with lr = 200 diverges; the lab's advice (a smaller lr) was only
# in `lab show`, the TUI showed "failed" and a cut log line.
start ps LANG=C.UTF-8
expect_screen ps "Warpbench · lessons" "home"
open_lab_form ps paramserver "Labs run real experiments" "lr"
set_field ps lr 200
keys ps s
expect_re ps "paramserver  failed" "the header says failed" 120
expect_screen ps "why it stopped" "the reason is shown on the lab screen"
# the advice is whole: joined over its wrapped rows, it names the fix
why=$(cap ps | awk '/why it stopped/ {on = 1; print; next} on && /^ *(⚠|!)|┌|│|└|┤|charts|^ *$/ {exit} on' | sed 's/^ *//; s/ *$//' | tr '\n' ' ' | tr -s ' ')
grep -qF "lr = 200 is too large" <<<"$why" && ok || fail "no 'lr = 200 is too large' in: $why"
grep -qF "try a smaller one, e.g. lr = 20" <<<"$why" && ok || fail "the advice is cut: $why"
if grep -qF "…" <<<"$why"; then fail "the reason is cut with …: $why"; else ok; fi
# the screen at 80×24, for the log
cap ps | sed -n '1,12p'
keys ps q q q
expect_screen ps "Warpbench · lessons" "home"
keys ps q
expect_exit ps 0 "quit after the failed run"
# ---- LANG=C: ASCII markers, and "<=" for ≤ -------------------------------------------
start ascii LANG=C LC_ALL=C
expect_screen ascii "Warpbench - lessons" "ASCII home"
keys ascii l
expect_screen ascii "Labs run real experiments" "ASCII lab list"
keys ascii Enter
expect_screen ascii "work_ms" "amdahl form"
# the last run of amdahl is shown after a new one; run it small
set_field ascii P 2
set_field ascii work_ms 20
set_field ascii reps 2
keys ascii s
expect_screen ascii "questions using this run" "ASCII run finished" 60
expect_screen ascii "* measured speedup" "ASCII legend: * for the measured series"
expect_screen ascii "o Amdahl" "ASCII legend: o for Amdahl"
if cap ascii | grep -qF "+ Gustafson"; then fail "LANG=C: Gustafson's marker is '+', like the ticks"; else ok; fi
if cap ascii | grep -qP '[^\x00-\x7f]'; then fail "non-ASCII characters under LANG=C: $(cap ascii)"; else ok; fi
keys ascii q q q
expect_screen ascii "Warpbench - lessons" "home"
keys ascii /
text ascii amdahl
keys ascii Enter Enter
expect_screen ascii "page 1/" "the Amdahl lesson"
found=no
for _ in $(seq 12); do
  if cap ascii | grep -qF "S <= 1/f"; then found=yes; break; fi
  keys ascii G
  if wait_for ascii "S <= 1/f" 1; then found=yes; break; fi
  keys ascii n
  sleep 0.1
done
if [ "$found" = yes ]; then ok; else fail "'S ≤ 1/f' is not 'S <= 1/f' under LANG=C: $(cap ascii)"; fi
if cap ascii | grep -qE "S < 1/f"; then fail "≤ became <"; else ok; fi
keys ascii q q
expect_exit ascii 0 "ASCII quit"

finish
