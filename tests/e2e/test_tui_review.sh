#!/usr/bin/env bash
# test_tui_review.sh — the design review screen of the real terminal UI
# (warpbench class review --tui), driven in tmux: two students' design
# answers wait; the first is shown beside its rubric with the automatic
# score; the reviewer scores each concept (digits, arrows), writes a
# comment, saves, and is taken to the next answer; the review is stored
# (class review --json) and counts in the gradebook; `a` lists the reviewed
# one too, and LANG=C draws it in ASCII. Beside each concept the screen shows
# what the automatic grader read (found, missing, ...), and below the rubric
# the selected concept's evidence: the clause, its subject, relation and
# object, as `class review --json` carries them in "claims".
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmux_lib.sh"
P="$PACKS/class"
TEACH="$T/teacher.db"
CLASS="$T/class.db"

for u in ann ben; do
  "$WB" --db "$T/$u.db" --user "$u" pack import "$P" >/dev/null 2>&1
done
"$WB" --db "$T/ann.db" --user ann answer test.class:design "We shard the parameters across servers." >/dev/null 2>&1
"$WB" --db "$T/ben.db" --user ben answer test.class:design "Workers go async, no barrier." >/dev/null 2>&1
for u in ann ben; do
  "$WB" --db "$T/$u.db" --user "$u" submit --out "$T/$u.wbsub" >/dev/null 2>&1 || fail "$u submits"
done
"$WB" --db "$TEACH" pack import "$P" >/dev/null 2>&1
# wbt ARGS...: warpbench as the instructor; sets OUT, ERR, RC like run.
wbt() { OUT=$("$WB" --db "$TEACH" --user prof "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
wbt class --class "$CLASS" import "$T/ann.wbsub" "$T/ben.wbsub"
expect_rc 0 "import"

# review NAME ENV...: the review screen in an 80x24 window.
review() {
  local name=$1; shift
  TM new-session -d -x 80 -y 24 -s "$name" \
    "bash '$T/pane.sh' env -u LINES -u COLUMNS $* '$WB' --db '$TEACH' --user prof class --class '$CLASS' review --tui"
}

review main LANG=C.UTF-8
expect_screen main "Warpbench · design review" "the review screen opens"
expect_screen main "answer 1 of 2 (2 waiting)" "two answers wait"
expect_screen main "test.class:design" "the question"
expect_screen main "student ann (ann)" "the first student"
expect_screen main "We shard the parameters across servers." "the answer"
# The scores start where the automatic reading left them: sharding covered.
expect_re main "▶ sharding +found +1 +- +1$" "the rubric starts at the automatic reading: sharding covered"
expect_re main "asynchrony +missing +1 +- +0$" "asynchrony missing"
expect_screen main "automatic 1" "the automatic score beside"
# What the grader read for the selected concept: the clause, its roles.
expect_screen main 'read, sharding: found — "We shard the parameters across servers"' \
  "the clause the grader credited"
expect_screen main 'subject "We"  relation "shard"  object "the parameters across servers"' \
  "its subject, relation and object"
keys main Down
expect_screen main "read, asynchrony: missing: no clause of the answer claims it" \
  "a missing concept's reading follows the selection"
keys main Up
expect_re main "▶ sharding +found" "back on sharding"
expect_screen main "q/Esc quit" "Esc is in the footer"

keys main 0
expect_re main "▶ sharding +found +1 +- +0$" "a digit sets the concept's score"
expect_screen main "[not saved]" "a changed review says it is not saved"
keys main 1
keys main Down Right
expect_re main "asynchrony +missing +1 +- +0.25$" "Right steps the score up"
keys main c
expect_screen main "Enter done" "the comment line has the keys"
text main "Name the consistency model too."
keys main Enter
expect_screen main "comment: Name the consistency model too." "the comment kept"
# Leaving unsaved work asks first; Esc stays.
keys main q
expect_screen main "unsaved review: s save it, d discard it, Esc stay" "q asks before dropping the review"
keys main Escape
expect_screen main "student ann (ann)" "Esc stays on the answer"
keys main s
expect_screen main "saved: 1.25 of 2 points for ann (ann)" "saved"
expect_screen main "student ben (ben)" "on to the next answer waiting"
expect_screen main "answer 2 of 2 (1 waiting)" "one waiting"
# Ben's: changed, then discarded on the way out.
keys main 2
keys main Escape
expect_screen main "unsaved review" "Esc asks too"
keys main d
expect_exit main 0 "d drops the change and leaves"

wbt --json class --class "$CLASS" review --all
expect_jq '.answers[] | select(.user == "ann") | .review_score' 1.25 "the review is stored"
expect_jq '.answers[] | select(.user == "ann") | .comment' "Name the consistency model too." "with its comment"
expect_jq '.answers[] | select(.user == "ann") | .reviewer' prof "and its reviewer"
expect_jq '.answers[] | select(.user == "ann") | .claims[0] | [.concept, .status, .clause, .subject, .relation, .object] | join("|")' \
  "sharding|found|We shard the parameters across servers|We|shard|the parameters across servers" \
  "the JSON carries the same evidence"
expect_jq '.answers[] | select(.user == "ann") | .claims[1] | [.concept, .status, .clause] | tojson' \
  '["asynchrony","missing",null]' "and the missing concept"
wbt --json class --class "$CLASS" grades
expect_jq '.students[] | select(.user == "ann") | .points' 1.25 "it counts in the gradebook"

# The reviewed answer is listed again with `a`, and in ASCII under LANG=C.
review ascii LANG=C
expect_screen ascii "Warpbench - design review" "ASCII title"
expect_screen ascii "answer 1 of 1 (1 waiting)" "only ben waits"
keys ascii a
expect_screen ascii "answer 2 of 2 (1 waiting)" "a lists every answer (ben stays selected)"
keys ascii p
expect_screen ascii "[reviewed]" "ann's shows as reviewed"
expect_re ascii "> sharding +found +1 +- +1$" "with the scores stored"
expect_screen ascii 'read, sharding: found - "We shard the parameters across servers"' \
  "and what the grader read, in ASCII"
expect_screen ascii "saved: 1.25" "and its total"
if cap ascii | LC_ALL=C grep -q '[^ -~]'; then fail "non-ASCII under LANG=C:"$'\n'"$(cap ascii)"; else ok; fi
keys ascii q
expect_exit ascii 0 "q leaves"
finish
