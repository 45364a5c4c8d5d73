#!/usr/bin/env bash
# test_locale.sh — Warpbench under a decimal-comma locale (LC_ALL=de_DE.UTF-8,
# where printf writes 1.5 as "1,5"): numbers typed, stored and printed keep
# the C locale's '.' everywhere.
#   - the CLI runs the parameter-server lab with link=2.5Gbps and
#     straggler=2:1.5, and every --json line (and the stored parameters and
#     summary) is JSON with '.' decimals;
#   - the terminal UI (tmux) reads a calculator input typed as 0.1, steps a
#     lab parameter (lr 0.5 -> 1.5) and starts the same paramserver run from
#     its form, and the run is stored with those values.
# Exits 77 (skipped) only when the locale cannot be set on this machine
# (scripts/setup.sh generates it).
source "$(dirname "$0")/lib.sh"

if ! locale -a 2>/dev/null | grep -qixE 'de_DE\.utf-?8'; then
  echo "skipped: the de_DE.UTF-8 locale is not installed (scripts/setup.sh generates it)"
  exit 77
fi
source "$(dirname "$0")/tmux_lib.sh"

PS=(--set workers=2 --set params=1000 --set steps=8 --set compute_ms=0 --set batch=8
  --set link=2.5Gbps --set straggler=2:1.5 --set lr=0.25)

# ---- the CLI ------------------------------------------------------------------
OUT=$(LC_ALL=de_DE.UTF-8 "$WB" --db "$DB" --json lab run paramserver "${PS[@]}" 2>"$T/stderr")
RC=$?
ERR=$(cat "$T/stderr")
expect_rc 0 "paramserver with link=2.5Gbps straggler=2:1.5 under de_DE"
bad=$(jq -c . <<<"$OUT" 2>&1 >/dev/null | head -3)
if [ -z "$bad" ] && [ -n "$OUT" ]; then ok; else fail "--json output does not parse: $bad"; fi
if grep -qE '[0-9],[0-9]' <<<"$(jq -c '.. | numbers' <<<"$OUT" 2>/dev/null)"; then
  fail "a decimal comma in the numbers"
else ok; fi
LAST=$(tail -n 1 <<<"$OUT")
OUT=$LAST
expect_jq .status done "the run is done"
RUN=$(jqv .run)
expect_sql "SELECT json_extract(params_json, '\$.link'), json_extract(params_json, '\$.straggler'), json_extract(params_json, '\$.lr') FROM lab_runs WHERE id = $RUN" \
  "2.5Gbps|2:1.5|0.25" "parameters stored as typed"
if sql "SELECT params_json || summary_json FROM lab_runs WHERE id = $RUN" | grep -qE ':-?[0-9]+,[0-9]'; then
  fail "a decimal comma in the stored JSON"
else ok; fi
run --json lab show "$RUN"
expect_rc 0 "lab show"
if jq -e . >/dev/null 2>&1 <<<"$OUT"; then ok; else fail "lab show --json does not parse: $OUT"; fi

# ---- the terminal UI ------------------------------------------------------------
start main LC_ALL=de_DE.UTF-8
expect_screen main "Warpbench · lessons" "home"
keys main C
expect_screen main "Warpbench · calculators" "the list of calculators"
keys main Enter
expect_screen main "Warpbench · calc amdahl.laws" "the Amdahl calculator"
keys main Enter C-u
text main 0.1
keys main Enter
expect_re main "serial fraction f +0\.1 " "f typed as 0.1 is read as one tenth"
expect_re main "Amdahl speedup S\(p\) +3\.077x$" "S(4) for f = 0.1, written with a point"
keys main q q
expect_screen main "Warpbench · lessons" "home again"

open_lab_form main paramserver paramserver "Parameter server and all-reduce SGD"
set_field main workers 2
set_field main params 1000
set_field main steps 8
set_field main compute_ms 0
set_field main batch 8
set_field main link 2.5Gbps
set_field main straggler 2:1.5
# Right steps lr by one: 0.5 -> 1.5 (the text written and read back)
for k in $(seq 30 | sed 's/.*/Up/'); do
  cap main | grep -qE "▶ lr +" && break
  keys main "$k"
  sleep 0.05
done
keys main Right
expect_re main "▶ lr +1\.5( |$)" "lr stepped to 1.5"
keys main Left
expect_re main "▶ lr +0\.5( |$)" "lr stepped back to 0.5"
keys main s
expect_screen main "questions using this run" "the run from the form finished" 60
expect_sql "SELECT status, json_extract(params_json, '\$.link'), json_extract(params_json, '\$.straggler'), json_extract(params_json, '\$.lr') FROM lab_runs ORDER BY id DESC LIMIT 1" \
  "done|2.5Gbps|2:1.5|0.5" "the TUI's run stored with its parameters"
keys main q q q q
expect_exit main 0 "quit"

finish
