#!/usr/bin/env bash
# The class loop through the real binary. Five students, each with their own
# store, answer (right, wrong, a planted common mistake, give-ups, a
# lab-linked question against a small selftest run, design answers) and
# submit; their stores do not change. The instructor imports every file:
# each grade agrees, the gradebook's totals equal each student's own
# progress, importing again changes nothing. A submission whose recorded
# score was edited with sqlite3 is flagged and its re-graded score is the
# one in the gradebook; a lab run whose summary was edited is implausible;
# truncated, foreign and changed files are refused and change nothing. Item
# analysis names the planted mistake; the CSV is RFC 4180 with formulas
# defused; a reviewed design score reaches the student through
# `feedback import`, in her progress, her question history and her terminal UI
# (tmux).
. "$(dirname "$0")/lib.sh"
P="$PACKS/class"
TEACH="$T/teacher.db"
CLASS="$T/class.db"

# wbs USER ARGS...: warpbench as student USER in their own store.
wbs() { local u=$1; shift; OUT=$("$WB" --db "$T/$u.db" --user "$u" "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
# wbt ARGS...: warpbench as the instructor.
wbt() { OUT=$("$WB" --db "$TEACH" --user prof "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
# The rows a student's work lives in, as text: to prove submitting changes nothing.
work_of() { sqlite3 -batch "$T/$1.db" "SELECT * FROM attempts; SELECT * FROM giveups; SELECT * FROM selfscores; SELECT id, status, summary_json FROM lab_runs; SELECT count(*) FROM lab_samples;"; }

for u in alice bob carol dave =2+3; do
  wbs "$u" pack import "$P"
  expect_rc 0 "$u imports the pack"
done

# ---- students answer ---------------------------------------------------------
wbs alice answer test.class:speedup 2.5;   expect_rc 0 "alice right"
wbs alice answer test.class:bound b;       expect_rc 0 "alice right (choice)"
wbs alice answer test.class:design "We shard the parameters across servers and let the workers go async."
expect_rc 0 "alice design"
wbs alice lab run selftest --set workers=2 --set steps=4 --set interval_ms=0
expect_rc 0 "alice runs the selftest lab"
wbs alice answer test.class:worker_total 30
expect_rc 0 "alice answers from her own run"
wbs bob answer test.class:speedup 1.18;    expect_rc 1 "bob: the planted mistake"
wbs bob answer test.class:bound a;         expect_rc 1 "bob wrong, no feedback for it"
wbs carol answer test.class:speedup 1.18;  expect_rc 1 "carol: the planted mistake"
wbs carol answer test.class:speedup 2.5;   expect_rc 0 "carol right on the second try"
wbs carol answer test.class:bound c;       expect_rc 1 "carol wrong, explained"
wbs carol answer test.class:design "We shard the keys."
expect_rc 1 "carol half a design"
wbs dave answer test.class:speedup 1.18;   expect_rc 1 "dave: the planted mistake"
wbs dave giveup test.class:bound;          expect_rc 0 "dave gives up"
wbs dave answer test.class:bound b;        expect_rc 1 "dave right after the give-up: earns nothing"
wbs =2+3 answer test.class:variant 2;      expect_rc 1 "a student named like a formula"

# ---- they submit ---------------------------------------------------------------
before=$(work_of alice)
wbs alice --json submit --out "$T/alice.wbsub" --student-id s001
expect_rc 0 "alice submits"
expect_jq .attempts 4 "alice's attempts"
expect_jq .lab_runs 1 "her run goes with them"
expect_jq .lab_samples 12 "with its samples"
[ "$(work_of alice)" = "$before" ] && ok || fail "submitting changed alice's store"
wbs alice submit --out "$T/alice.wbsub"
expect_rc 7 "an existing file is never replaced"
expect_err "exists" "says the file exists"
for u in bob carol dave; do
  wbs "$u" --json submit test.class --out "$T/$u.wbsub"
  expect_rc 0 "$u submits"
done
wbs =2+3 submit --out "$T/formula.wbsub"; expect_rc 0 "the formula student submits"
# Submitting twice makes a newer file (default names never collide).
WBABS=$(cd "$(dirname "$WB")" && pwd)/$(basename "$WB")
(cd "$T" && "$WBABS" --db "$T/bob.db" --user bob submit >/dev/null 2>&1 && "$WBABS" --db "$T/bob.db" --user bob submit >/dev/null 2>&1)
[ "$(ls "$T"/submission-bob-*.wbsub | wc -l)" -eq 2 ] && ok || fail "two submissions, two files"

# ---- the instructor imports --------------------------------------------------
wbt pack import "$P"; expect_rc 0 "the instructor imports the pack"
FILES=("$T/alice.wbsub" "$T/bob.wbsub" "$T/carol.wbsub" "$T/dave.wbsub" "$T/formula.wbsub")
wbt --json class --class "$CLASS" import "${FILES[@]}"
expect_rc 0 "every file imports, every grade agrees"
expect_jq '[.files[].result] | unique' '[
  "new"
]' "all new"
expect_jq '[.files[] | .agree == .attempts] | all' true "every re-grade agrees with the record"
expect_jq '.files[0].lab_regraded' 1 "alice's lab answer re-graded against her submitted run"
expect_jq '.files[0].lab_runs_implausible' 0 "her run is plausible"
expect_jq '.files[0].student' s001 "the student id is the key"

# The gradebook's totals are the students' own progress.
# Unreviewed automatic design scores are pending, not points (--count-automatic
# counts them, as a student's own progress does).
wbt --json class --class "$CLASS" grades test.class
expect_rc 0 "gradebook"
expect_jq '.students[] | select(.user == "carol") | .design_pending' 2 "carol's design answer waits for a review"
expect_jq '.students[] | select(.user == "carol") | .points' 0.9 "and earns nothing yet"
wbt --json class --class "$CLASS" grades test.class --count-automatic
expect_rc 0 "gradebook counting automatic design scores"
GB=$OUT
for u in alice bob carol dave =2+3; do
  wbs "$u" --json progress test.class
  mine=$(jq -r '.total[0].score' <<<"$OUT")
  theirs=$(jq -r --arg u "$u" '.students[] | select(.user == $u) | .points' <<<"$GB")
  if jq -ne --argjson a "$mine" --argjson b "$theirs" '($a - $b) | fabs < 1e-9' >/dev/null; then ok
  else fail "gradebook total of $u is $theirs, their progress says $mine"; fi
done
expect_jq_gb() { local got; got=$(jq -r "$1" <<<"$GB"); [ "$got" = "$2" ] && ok || fail "$3: $got, expected $2"; }
expect_jq_gb '.students[] | select(.user == "carol") | .points' 1.9 "carol: 0.9 (second try) + 0 + 1 (half a design)"
expect_jq_gb '.students[] | select(.user == "dave") | .points' 0 "dave: help earns nothing"
expect_jq_gb '.students[] | select(.user == "alice") | .design_pending' 2 "alice's design awaits review"

# Importing again changes nothing.
count_rows() { sqlite3 -batch "$CLASS" "SELECT (SELECT count(*) FROM submissions), (SELECT count(*) FROM attempts), (SELECT count(*) FROM lab_samples), (SELECT group_concat(imported_at) FROM submissions)"; }
rows=$(count_rows)
wbt --json class --class "$CLASS" import "${FILES[@]}"
expect_rc 0 "second import"
expect_jq '[.files[].result] | unique | join(",")' unchanged "every file unchanged"
[ "$(count_rows)" = "$rows" ] && ok || fail "a second import changed the class store"
wbt --json class --class "$CLASS" grades test.class --count-automatic
[ "$OUT" = "$GB" ] && ok || fail "a second import changed the gradebook"

# ---- a record edited with sqlite3 -------------------------------------------------
cp "$T/dave.wbsub" "$T/dave-edited.wbsub"
sqlite3 "$T/dave-edited.wbsub" "UPDATE attempts SET score = max, correct = 1 WHERE question_id = 'speedup'"
wbt --json class --class "$CLASS" import "$T/dave-edited.wbsub"
expect_rc 7 "the same submission with other content is refused"
[ "$(count_rows)" = "$rows" ] && ok || fail "the refused file changed the class store"
wbt --json class --class "$T/class2.db" import "$T/dave-edited.wbsub"
expect_rc 1 "an edited record imports, flagged"
expect_jq '.files[0].disagree' 1 "one grade disagrees"
expect_jq '.files[0].flags[0].kind' tampered "named as tampering"
expect_jq '.files[0].flags[0].question' speedup "the edited question"
expect_jq '.files[0].flags[0].recorded' 1 "what the file claims"
expect_jq '.files[0].flags[0].regraded' 0 "what the instructor's grader says"
wbt --json class --class "$T/class2.db" grades
expect_jq '.students[0].points' 0 "the re-graded score is the one in the gradebook"
expect_jq '.students[0].flags' 1 "and the student is flagged"
wbt class --class "$T/class2.db" import "$T/dave-edited.wbsub"
expect_rc 0 "unchanged on a second import"

# ---- a lab run edited with sqlite3 ------------------------------------------------
cp "$T/alice.wbsub" "$T/alice-edited.wbsub"
sqlite3 "$T/alice-edited.wbsub" "UPDATE lab_runs SET summary_json = json_set(summary_json, '$.worker_total', 99)"
wbt --json class --class "$T/class3.db" import "$T/alice-edited.wbsub"
expect_rc 1 "an edited run imports, flagged"
expect_jq '.files[0].lab_runs_implausible' 1 "the run is implausible"
expect_jq '.files[0].implausible_runs[0].problems | test("worker_total says 99")' true "says which figure"

# ---- a copy of a classmate's work ---------------------------------------------------
# zed hands in alice's submission as his own: her file with his student id
# and a new submission id (what a copy of her store would submit). Her
# answers at their very milliseconds are found in his file: his graded work
# at the pack is withheld until the instructor looks, and he is named.
cp "$T/alice.wbsub" "$T/zed.wbsub"
sqlite3 "$T/zed.wbsub" "UPDATE meta SET value = 's099' WHERE key = 'student_id';
  UPDATE meta SET value = 'zed' WHERE key = 'user';
  UPDATE meta SET value = '$(printf 'cd%.0s' $(seq 16))' WHERE key = 'uid'" && ok || fail "zed's edit"
wbt --json class --class "$T/class4.db" import "$T/alice.wbsub" "$T/zed.wbsub"
expect_rc 1 "the copy imports, flagged"
expect_jq '[.files[0].flags[] | select(.kind == "copied attempts")] | length' 0 "alice's file, first, holds nothing of another's"
expect_jq '[.files[1].flags[] | select(.kind == "copied attempts")] | length' 1 "zed's file is flagged once"
expect_jq '.files[1].flags[] | select(.kind == "copied attempts") | .blocking' true "blocking"
expect_jq '.files[1].flags[] | select(.kind == "copied attempts") | .reason | test("^4 attempts at test.class are also in student s001")' true "names the count and the other student"
# The instructor re-grades the class: alice's file now finds zed's copy too.
wbt --json class --class "$T/class4.db" regrade
expect_rc 0 "the re-grade"
wbt --json class --class "$T/class4.db" flags
expect_jq '[.flags[] | select(.kind == "copied attempts" and .current) | "\(.student)>\(.reason | capture("student (?<o>s[0-9]+)").o)"] | sort | join(",")' 's001>s099,s099>s001' "after it each of the two names the other"
wbt --json class --class "$T/class4.db" grades test.class
expect_jq '.students[] | select(.student_id == "s099") | .blocking_flags' 1 "zed has a blocking flag in the gradebook (it withholds graded work; this pack is practice)"
# bob's own work shares no millisecond with alice's: nothing copied.
wbt --json class --class "$T/class4.db" import "$T/bob.wbsub"
expect_jq '[.files[0].flags[] | select(.kind == "copied attempts")] | length' 0 "bob's own work is not flagged"

# ---- refused files ---------------------------------------------------------------
size=$(stat -c %s "$T/alice.wbsub")
for cut in 100 $((size / 2)) $((size - 1)); do
  head -c "$cut" "$T/alice.wbsub" > "$T/cut.wbsub"
  wbt class --class "$CLASS" import "$T/cut.wbsub"
  expect_rc 6 "a file cut to $cut bytes is refused"
  expect_err "cut.wbsub" "names the file"
done
wbt class --class "$CLASS" import "$T/alice.db"
expect_rc 6 "a store is refused"
expect_err "is a Warpbench store, not a Warpbench submission file" "says what it is"
printf 'not a database\n' > "$T/notes.wbsub"
wbt class --class "$CLASS" import "$T/notes.wbsub"
expect_rc 6 "a text file is refused"
[ "$(count_rows)" = "$rows" ] && ok || fail "a refused file changed the class store"
[ "$(sqlite3 "$CLASS" 'PRAGMA integrity_check')" = ok ] && ok || fail "class store integrity"

# ---- item analysis --------------------------------------------------------------
wbt --json class --class "$CLASS" items test.class
expect_rc 0 "item analysis"
expect_jq '.items[] | select(.question == "speedup") | .wrong[0].answer' "1.18 ×" "the planted mistake leads"
expect_jq '.items[] | select(.question == "speedup") | .wrong[0].count' 3 "three students made it"
expect_jq '.items[] | select(.question == "speedup") | .wrong[0].explained' true "its wrong value explains it"
expect_jq '.items[] | select(.question == "speedup") | .wrong[0].feedback | test("parallel fraction")' true "with its feedback"
expect_jq '.items[] | select(.question == "speedup") | .students' 4 "four students answered it"
expect_jq '.items[] | select(.question == "bound") | .giveup_rate' 0.25 "a quarter gave up"
expect_jq '.items[] | select(.question == "bound") | [.wrong[] | select(.answer == "a") | .explained][0]' false "a wrong choice no note explains"
wbt class --class "$CLASS" items test.class
expect_out 'wrong "a" x1: no feedback matched' "what an author should add next"
wbt --json class --class "$CLASS" items test.class --sort facility
expect_jq '.items[0].facility <= .items[1].facility' true "sorted by facility"
wbt class --class "$CLASS" items --sort nonsense
expect_rc 2 "an unknown sort key"

# ---- the CSV ---------------------------------------------------------------------
wbt class --class "$CLASS" grades test.class --csv "$T/grades.csv"
expect_rc 0 "CSV written"
head -1 "$T/grades.csv" | grep -q $'^\xef\xbb\xbfStudent,ID,SIS User ID,SIS Login ID,Section,Speedup (test.class:speedup) \\[/5\\]' && ok || fail "CSV header: $(head -1 "$T/grades.csv")"
sed -n 2p "$T/grades.csv" | grep -q '^Points Possible,,,,,5,' && ok || fail "Points Possible row: $(sed -n 2p "$T/grades.csv")"
grep -q $'^alice,,s001,alice,,' "$T/grades.csv" && ok || fail "alice's row"
grep -qF "\"'=2+3\",,,\"'=2+3\",," "$T/grades.csv" && ok || fail "a formula name is defused: $(grep 2+3 "$T/grades.csv")"
[ "$(grep -c $'\r$' "$T/grades.csv")" -eq 7 ] && ok || fail "CRLF line ends"
wbt class --class "$CLASS" grades test.class --csv "$T/grades.csv"
expect_rc 7 "the CSV is not replaced"
wbt class --class "$CLASS" grades test.class --csv "$T/grades.csv" --force
expect_rc 0 "unless asked"

# ---- review and feedback ----------------------------------------------------------
wbt --json class --class "$CLASS" review
expect_rc 0 "the review queue"
expect_jq '[.answers[].user] | sort | join(",")' alice,carol "two design answers wait"
A=$(jq -r '.answers[] | select(.user == "alice") | .attempt' <<<"$OUT")
expect_jq '.answers[] | select(.user == "alice") | .rubric | map(.concept) | join(",")' sharding,asynchrony "beside its rubric"
wbt class --class "$CLASS" review set "$A" --concept nonsense=1
expect_rc 2 "an unknown concept"
wbt class --class "$CLASS" review set "$A" --concept sharding=2
expect_rc 2 "a score beyond the concept's points"
wbt class --class "$CLASS" review set "$A" --concept sharding=1 --concept asynchrony=0.5 --comment "Say what bounds the staleness."
expect_rc 0 "the instructor reviews alice's design"
wbt --json class --class "$CLASS" review
expect_jq '[.answers[].user] | join(",")' carol "one left"
wbt --json class --class "$CLASS" grades test.class
expect_jq '.students[] | select(.user == "alice") | .design_pending' 0 "nothing pending for alice"
gb_alice=$(jq -r '.students[] | select(.user == "alice") | .points' <<<"$OUT")
[ "$gb_alice" = 4.5 ] && ok || fail "the reviewed score is final in the gradebook: $gb_alice"
wbt class --class "$CLASS" feedback --out "$T/fb"
expect_rc 0 "feedback files"
[ -f "$T/fb/s001.wbfb" ] && [ -f "$T/fb/bob.wbfb" ] && ok || fail "one file per student: $(ls "$T/fb")"
wbt class --class "$CLASS" feedback --out "$T/fb"
expect_rc 7 "feedback files are not replaced"
wbs bob feedback import "$T/fb/s001.wbfb"
expect_rc 7 "another student's feedback is refused"
wbs alice --json feedback import "$T/fb/s001.wbfb"
expect_rc 0 "alice imports her feedback"
expect_jq .added 1 "one review"
wbs alice --json progress test.class
expect_jq '.total[0].score' 4.5 "her progress counts the reviewed score"
expect_jq '.reviews[0].comment' "Say what bounds the staleness." "with the comment"
wbs alice --json question test.class:design
expect_jq '.history[0].reviewed' true "the question's history says reviewed"
expect_jq '.history[0].score' 1.5 "with the reviewed score"
wbs alice question test.class:design
expect_out "(reviewed by prof: Say what bounds the staleness.)" "in words too"
wbs alice --json feedback import "$T/fb/s001.wbfb"
expect_jq .added 0 "importing again adds nothing"

# ---- and in her terminal UI: the question's history shows the review ----------------
source "$(dirname "$0")/tmux_lib.sh"
DB="$T/alice.db" start main LANG=C.UTF-8
expect_screen main "Warpbench · lessons" "alice's TUI"
keys main /
text main Speedup
keys main Enter Enter
expect_re main "4 +~ design +design +1.5/2 pt" "the lesson's list shows the reviewed score"
keys main 4
expect_re main "#1 +~ 1.5/2 " "the attempt with the reviewed score"
expect_screen main "reviewed by prof: Say what bounds the staleness." "and the instructor's comment"
finish
