#!/usr/bin/env bash
# test_tui_code.sh — the programming exercise screen of the real terminal UI,
# in tmux against a temporary store: Enter on a code question of its lesson
# opens it; `s` writes the starter (a new file), `r` runs it (the roofline
# measured first) and shows the result and the score, `e` opens $EDITOR on
# the file (here a script that writes a wrong solution), `r` again shows the
# failure with its first wrong element, and the chart of the runs is drawn.
# Every wait polls the screen against a deadline.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }

run pack import "$PACKS/code"
expect_rc 0 "import the code pack"
mkdir "$T/work"
cat >"$T/editor.sh" <<'SH'
#!/bin/sh
cat >"$1" <<'C'
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 3.0f * x[i];
}
C
SH
chmod +x "$T/editor.sh"
TM new-session -d -x 80 -y 24 -c "$T/work" -s main \
  "bash '$T/pane.sh' env -u LINES -u COLUMNS LANG=C.UTF-8 EDITOR='$T/editor.sh' WARPBENCH_USER=alice '$WB' --db '$DB' tui"
expect_screen main "Warpbench · lessons" "home"
keys main /
text main "Scale a vector"
keys main Enter Enter
expect_screen main "page 1/" "lesson open"
n=$(cap main | sed -nE 's/^ ([0-9]) .*Scale a vector$/\1/p' | head -1)
keys main "${n:-1}"
expect_screen main "void scale(int n, const float *x, float *y)" "the code screen shows the signature"
expect_screen main "not run yet" "nothing run yet"
keys main s
expect_screen main "wrote scale.c" "the starter written"
[ -s "$T/work/scale.c" ] && ok || fail "no scale.c in the TUI's directory"
keys main s
expect_screen main "already exists" "the starter never replaces a file"
keys main r
expect_screen main "correct" "the run's result" 120
expect_re main "score [0-9.]+ / 4" "the score"
expect_re main "GFLOP/s .* of the roofline" "the figures"
expect_screen main "your runs: fraction of this machine's roofline" "the history chart"
keys main e
expect_screen main "void scale" "back from the editor"
grep -qF "3.0f" "$T/work/scale.c" && ok || fail "the editor did not run on scale.c"
keys main r
expect_screen main "NOT CORRECT" "the wrong file fails" 60
expect_screen main "expected" "naming the first wrong element"
expect_sql "SELECT count(*) FROM attempts WHERE question_id = 'xp.scale'" 2
keys main q q
echo "tui code: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
