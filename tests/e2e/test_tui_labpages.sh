#!/usr/bin/env bash
# test_tui_labpages.sh — the lab screen's chart pages in the real terminal UI
# (tmux, 80×24) with the `paramserver` lab and its 7 chart groups: a long run
# shows "charts 1–4 of 7", `]` turns to the later charts (wire MB/s per
# shard, staleness histogram, per worker) while it runs, q (and y) cancels
# it; then a tiny run (workers=2, params=1000, steps=30, link=off,
# compute_ms=0) to its summary, which keeps the first chart shown, two a
# page; `[` and PgDn turn pages there, the footer and the `?` help list the
# keys, and the run is recorded as done.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"

start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "home"
open_lab_form main paramserver paramserver "Parameter server and all-reduce SGD"
# A long run (1 ms of compute a step, 100000 steps) to page while it runs.
set_field main workers 2
set_field main params 1000
set_field main steps 100000
set_field main compute_ms 1
set_field main link off
keys main s
expect_screen main "paramserver  running" "the long run is running"
expect_screen main "charts 1–4 of 7 · ] next" "page line on page 1 while running"
expect_screen main "loss vs steps" "a first-page chart"
if cap main | grep -qF "per worker"; then fail "a page-2 chart on page 1: $(cap main)"; else ok; fi
expect_screen main "]/PgDn charts" "the page key in the footer"
keys main ']'
expect_screen main "charts 5–7 of 7 · [ prev" "page line on page 2 while running"
expect_screen main "wire MB/s per shard" "a later chart while running: wire MB/s per shard"
expect_screen main "staleness histogram" "a later chart while running: staleness histogram"
expect_screen main "per worker" "a later chart while running: per worker"
if cap main | grep -qF "loss vs steps"; then fail "a page-1 chart on page 2: $(cap main)"; else ok; fi
expect_screen main "paramserver  running" "still running on page 2"
pid=$(wb_pid main)
keys main q y
expect_screen main "run cancelled" "cancel returns to the form"
kids=$(pgrep -P "$pid" | wc -l)
if [ "$kids" -eq 0 ]; then ok; else fail "$kids child process(es) left after cancel"; fi

# A tiny run to its summary.
set_field main steps 30
set_field main compute_ms 0
keys main s
# The summary keeps the first chart shown; at 80×24 it shows two charts a
# page, so that each keeps a readable height; its charts are those that got
# samples.
expect_screen main "questions using this run" "the run finished" 60
expect_screen main "staleness histogram" "the staleness histogram on the summary's page"
expect_re main "charts 5–6 of 7 · \[ prev  \] next" "page line on the summary"
keys main '['
expect_screen main "charts 3–4 of 7 · [ prev  ] next" "a page back with ["
keys main '['
expect_screen main "charts 1–2 of 7 · ] next" "back to page 1 with ["
expect_screen main "loss vs wall time" "page-1 chart again"
keys main PgDn PgDn PgDn
expect_screen main "chart 7 of 7 · [ prev" "PgDn turns the page too"
expect_screen main "per worker" "the last chart"
expect_screen main "]/PgDn charts" "the page key in the summary's footer"
keys main '?'
expect_screen main "next page of charts" "? help lists ]"
expect_screen main "previous page of charts" "? help lists ["
keys main Escape
expect_sql "SELECT lab, status FROM lab_runs ORDER BY id DESC LIMIT 1" "paramserver|done" \
  "the run recorded as done"

keys main q q q q
expect_exit main 0 "q back to home, then quit"

finish
