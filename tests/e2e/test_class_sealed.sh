#!/usr/bin/env bash
# A sealed class through the real binary. The instructor makes a release of
# the example course and proves it holds nothing that grades (and a release
# with a planted reference fails that proof). Five students import it under
# their student ids; their graded answers are recorded with no score, no
# other variant, no give-up and no solution, in the CLI and in the terminal
# UI. They submit; the instructor imports: each sealed answer is graded with
# the source for the student's own numbers, and the gradebook and its Canvas
# CSV hold the points. One student cheats every way this file knows of, and
# each way is flagged with its reason and earns nothing until cleared: a
# copy of a classmate's store as an oracle (it holds no reference to find),
# forged numbers, a forged release digest, a backdated exam, an edited lab
# run claiming a GPU, a future clock, a second store under a classmate's id,
# a deleted wrong try. A late answer is graded under the pack's late rule. A
# new release (1.0.1) re-grades and keeps flags and clears. Official grades
# reach the student's progress through feedback files.
. "$(dirname "$0")/lib.sh"
SRC="$WB_SOURCE_DIR/lessons/examples/class"
TEACH="$T/teacher.db"
CLASS="$T/class.db"
REL="$T/release"

wbs() { local u=$1; shift; OUT=$("$WB" --db "$T/$u.db" --user "$u" "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
wbt() { OUT=$("$WB" --db "$TEACH" --user prof "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
# sigfig X: X to three significant figures, as the students are asked to give.
sigfig() { awk -v x="$1" 'BEGIN { printf "%.3g\n", x }'; }
# prompt_of USER QID: the question's prompt with the student's numbers.
prompt_of() { wbs "$1" --json question "$2"; jq -r .prompt <<<"$OUT"; }
# field TEXT REGEX: the first capture of a sed regex in TEXT.
field() { sed -nE "s|.*$2.*|\\1|p" <<<"$1" | head -1; }

# ---- the release ---------------------------------------------------------------------
wbt pack release "$SRC" "$REL" --salt 00112233445566778899aabbccddeeff
expect_rc 0 "the instructor makes a release"
expect_out "2 sealed lessons, 8 sealed questions" "both graded lessons sealed"
expect_out "left out 1 calculator" "the calculator that gives a sealed answer is left out"
expect_out "proved: it carries nothing that grades" "and proved as it is made"
wbt pack release "$SRC" "$REL"
expect_rc 7 "a release never replaces a folder"
wbt pack check --release "$REL" --source "$SRC"
expect_rc 0 "the release carries nothing that grades"
expect_out "carries nothing that grades" "says so"
GRADING='^ *(answer|model|concepts|wrong|why|examples|grade|tolerance|feedback) *=|function speedup'
if grep -qE "$GRADING" "$REL/homework.lua" "$REL/exam.lua"; then
  fail "a sealed lesson keeps a grading field: $(grep -nE "$GRADING" "$REL/homework.lua" "$REL/exam.lua")"
else ok; fi
grep -q "S = 1 / (f" "$REL/homework.lua" && fail "a private hint reached the release" || ok
grep -q "Which part of the job does not get faster" "$REL/homework.lua" && ok || fail "the public hint is kept"

# A source whose params hand out the reference: its release fails the proof.
cp -r "$SRC" "$T/leaky"
sed -i 's/params = function(rng) return draw(rng) end,/params = function(rng) local p = draw(rng); p.check = speedup(p.serial, p.workers); return p end,/' "$T/leaky/homework.lua"
grep -q "p.check = speedup" "$T/leaky/homework.lua" && ok || fail "the leak was not planted"
run pack release "$T/leaky" "$T/leaky-rel" --new-salt
expect_rc 4 "a release whose numbers give the reference fails its proof"
expect_err "question hw.speedup: its params compute the reference" "names the question that leaks"
expect_err "must not be handed out" "and says what that means"
run pack check --release "$T/leaky-rel" --source "$T/leaky"
expect_rc 4 "pack check --release says the same"

# ---- students --------------------------------------------------------------------------
# alice: right everywhere; bob: wrong then right; carol: late; dave: honest
# and plain; eve: cheats.
ids=(alice:s001 bob:s002 carol:s003 dave:s004 eve:s005)
for pair in "${ids[@]}"; do
  u=${pair%%:*}; id=${pair#*:}
  wbs "$u" pack import "$REL" --student-id "$id"
  expect_rc 0 "$u imports the release"
done

# Graded work needs a student id: the numbers are drawn from it, and two
# students under one user name must not replace each other.
wbs zed pack import "$REL"; expect_rc 0 "zed imports without an id"
wbs zed answer example.class:hw.law Amdahl
expect_rc 2 "a sealed answer without a student id is refused"
expect_err "student id" "says what is missing"

# speedup_answer USER: 1/(f + (1-f)/p) for the user's own numbers, 3 s.f.
speedup_answer() {
  local pr f p
  pr=$(prompt_of "$1" example.class:hw.speedup)
  f=$(field "$pr" 'A job is ([0-9.]+) serial'); p=$(field "$pr" 'do ([0-9]+) workers')
  sigfig "$(awk -v f="$f" -v p="$p" 'BEGIN { print 1 / (f + (1 - f) / p) }')"
}
# order_answer USER: the letters of the shown items from least to most speedup.
order_answer() {
  wbs "$1" --json question example.class:hw.order
  local want=("half serial" "a quarter serial" "a tenth serial" "a hundredth serial") ans="" w i
  for w in "${want[@]}"; do
    i=$(jq -r --arg w "$w" '.choices | index($w)' <<<"$OUT")
    ans+=$(printf "\\x$(printf %x $((97 + i)))")
  done
  echo "$ans"
}

wbs alice --json answer example.class:hw.speedup "$(speedup_answer alice)"
expect_rc 0 "a sealed answer is recorded"
expect_jq .sealed true "as sealed"
expect_jq .score null "with no score"
expect_jq .correct null "no verdict"
expect_jq .reference null "no reference"
expect_jq .feedback "Recorded — graded by your instructor." "and says who grades it"
wbs alice answer example.class:hw.speedup 3 --variant 2
expect_rc 2 "another variant is refused"
expect_err "another variant is not offered" "says why"
wbs alice giveup example.class:hw.speedup
expect_rc 7 "no give-up on sealed work"
expect_err "holds no solution" "says why"
wbs alice answer example.class:hw.speedup banana
expect_rc 3 "a nonsense answer is explained, not recorded"
wbs alice --json question example.class:hw.speedup
expect_jq .hints_total 1 "only the public hint"
expect_jq .tries_used 1 "the nonsense answer was not a try"
wbs alice answer example.class:hw.efficiency b;     expect_rc 0 "choice recorded"
wbs alice answer example.class:hw.order "$(order_answer alice)"; expect_rc 0 "ordering recorded"
wbs alice answer example.class:hw.law Amdahl;       expect_rc 0 "text recorded"
wbs alice --json progress example.class
expect_jq '[.. | objects | select(has("score")) | .score] | map(select(. != null and . > 0)) | length' 0 \
  "progress shows no score for sealed work"

# bob's first try is 1.2% off: wrong in 1.0.0 (0.5%), right in 1.0.1 (2%).
wbs bob answer example.class:hw.speedup "$(sigfig "$(awk -v x="$(speedup_answer bob)" 'BEGIN { print x * 1.012 }')")"
expect_rc 0 "bob's wrong answer is recorded as any other"
wbs bob answer example.class:hw.speedup "$(speedup_answer bob)"; expect_rc 0 "his second try"
wbs bob answer example.class:hw.speedup 5;          expect_rc 7 "no third try"
wbs bob answer example.class:hw.efficiency c;       expect_rc 0 "a wrong choice"

# The exam: started, answered, timed.
for u in alice dave; do
  wbs "$u" exam start example.class:exam; expect_rc 0 "$u starts the exam"
  pr=$(prompt_of "$u" example.class:exam.limit)
  f=$(field "$pr" 'A job is ([0-9.]+) serial')
  wbs "$u" answer example.class:exam.limit "$(awk -v f="$f" 'BEGIN { print 1 / f }')"
  expect_rc 0 "$u answers the exam"
  wbs "$u" answer example.class:exam.gustafson "a b d"; expect_rc 0 "$u: multi"
done
wbs alice answer example.class:exam.design "The serial part bounds the speedup (Amdahl): reduce the serial part by overlapping it."
expect_rc 0 "a design answer in the exam"
wbs dave answer example.class:exam.gustafson "a b"
expect_rc 7 "one answer per exam question"
for u in alice dave; do
  wbs "$u" exam submit example.class:exam; expect_rc 0 "$u hands in the exam"
done
wbs alice --json question example.class:exam.limit
expect_jq '.history[0].score' null "a sealed exam shows no grade after it is handed in"
expect_jq '[.solution, .solution_accepted, .history[0].reference] | map(select(. != null)) | length' 0 \
  "nor a solution: a copy of the store sat as a rehearsal reveals nothing"

# The terminal UI records a sealed answer and shows no grade (dave, hw.law).
. "$WB_SOURCE_DIR/tests/e2e/tmux_lib.sh"
TM new-session -d -x 80 -y 24 -s tui "bash '$T/pane.sh' env WARPBENCH_USER=dave '$WB' --db '$T/dave.db' tui"
expect_screen tui "Warpbench · lessons" "home"
keys tui /
text tui "Homework 1"
keys tui Enter Enter
expect_screen tui "Homework 1: scaling" "the homework opens"
for _ in $(seq 12); do
  cap tui | grep -qF "The law" && break
  keys tui n
  sleep 0.1
done
n=$(cap tui | sed -nE 's/^ ([0-9]) .*The law.*/\1/p' | head -1)
keys tui "${n:-4}"
expect_screen tui "Whose law bounds" "the question"
text tui "Amdahl"
keys tui Enter
expect_screen tui "Recorded — graded by your instructor" "the answer is recorded"
expect_screen tui "Enter records your answer" "the answer line says it records"
if cap tui | grep -qE "Correct|[0-9.]+ */ *1 point|Score:|give up"; then
  fail "the TUI shows a grade or a give-up for sealed work: $(cap tui)"; else ok; fi
keys tui Tab
expect_screen tui "commands: i type" "the commands"
keys tui q q q
expect_exit tui 0 "quit"
wbs dave --json question example.class:hw.law
expect_jq '.history | length' 1 "the TUI's answer is in dave's record"
expect_jq '.history[0].score' null "with no score"

# ---- eve cheats ------------------------------------------------------------------------
# A copy of alice's store is no oracle: no reference of hers is in it, at any
# precision (only what she typed).
pr=$(prompt_of alice example.class:hw.speedup)
f=$(field "$pr" 'A job is ([0-9.]+) serial'); p=$(field "$pr" 'do ([0-9]+) workers')
cp "$T/alice.db" "$T/oracle.db"
dump=$(sqlite3 "$T/oracle.db" .dump)
for fmt in %.5g %.6g %.8g %.10g %.12g %.15g %.17g; do
  ref=$(awk -v f="$f" -v p="$p" -v fmt="$fmt" 'BEGIN { printf fmt, 1 / (f + (1 - f) / p) }')
  if grep -qF -- "$ref" <<<"$dump"; then fail "alice's store holds her reference $ref"; else ok; fi
done

wbs eve exam start example.class:exam; expect_rc 0 "eve starts the exam"
pr=$(prompt_of eve example.class:exam.limit)
wbs eve answer example.class:exam.limit "$(awk -v f="$(field "$pr" 'A job is ([0-9.]+) serial')" 'BEGIN { print 1 / f }')"
expect_rc 0 "eve answers the exam"
wbs eve exam submit example.class:exam; expect_rc 0 "eve hands in the exam"
wbs eve answer example.class:hw.speedup 8;           expect_rc 0 "eve: the ideal speedup"
wbs eve answer example.class:hw.efficiency b;        expect_rc 0 "eve: right, to forge its release"
wbs eve answer example.class:hw.order abcd;          expect_rc 0 "eve: an order she will hide"
wbs eve answer example.class:hw.order "$(order_answer eve)"; expect_rc 0 "eve: then right"
wbs eve answer example.class:hw.law Amdahl;          expect_rc 0 "eve: right, to date in the future"
wbs eve lab run coalescing --set cpu_mib=4 --set cpu_reps=1 --set reps=3 --set offset_max=2 --set stride_max=4
expect_rc 0 "eve runs the lab"
pr=$(prompt_of eve example.class:hw.stride)
c=$(field "$pr" 'copied at ([0-9.e+]+) GB/s'); s2=$(field "$pr" 'float at ([0-9.e+]+) GB/s')
wbs eve answer example.class:hw.stride "$(sigfig "$(awk -v a="$s2" -v b="$c" 'BEGIN { print a / b }')")"
expect_rc 0 "eve answers from her run"
E="$T/eve.db"
# She drops the store's append-only triggers first, as anyone can.
sqlite3 "$E" "
  DROP TRIGGER attempts_no_update; DROP TRIGGER attempts_no_delete; DROP TRIGGER exams_submit_once;
  UPDATE attempts SET params_json = '{\"serial\":0,\"workers\":8}' WHERE question_id = 'hw.speedup';
  DELETE FROM attempts WHERE id = (SELECT min(id) FROM attempts WHERE question_id = 'hw.order');
  UPDATE attempts SET created_at = '2099-01-01T00:00:00.000Z' WHERE question_id = 'hw.law';
  UPDATE exams SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 hours');
  UPDATE lab_runs SET summary_json = json_set(summary_json, '\$.device', 'gpu', '\$.gpu_name', 'NVIDIA H100 80GB HBM3', '\$.copy_gbs', 3000);
" && ok || fail "eve's edits"

# frank got the instructor's source and answers there: graded at once, in
# his store; mallory claims alice's student id from a store of her own.
wbs frank pack import "$SRC" --student-id s006; expect_rc 0 "frank imports the leaked source"
wbs frank answer example.class:hw.law Amdahl;    expect_rc 0 "graded at once there"
wbs mallory pack import "$REL" --student-id s001; expect_rc 0 "mallory under alice's id"
wbs mallory answer example.class:hw.law Gustafson; expect_rc 0 "mallory answers"

# carol answers last, after the deadline the instructor will give.
DEADLINE=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
wbs carol answer example.class:hw.speedup "$(speedup_answer carol)"; expect_rc 0 "carol, late"
wbs carol answer example.class:hw.law amdahl; expect_rc 0 "carol, late"

# ---- they submit; the instructor imports ------------------------------------------------
for u in mallory alice bob carol dave eve frank; do
  wbs "$u" --json submit example.class --out "$T/$u.wbsub"
  expect_rc 0 "$u submits"
done
expect_jq .student_id s006 "frank's id goes with his file"
# mallory dates her file in 2099, so that it would be alice's newest.
sqlite3 "$T/mallory.wbsub" "UPDATE meta SET value = '2099-01-01T00:00:00.000Z' WHERE key = 'created_at'" && ok || fail "mallory's edit"
# eve edits her file too: her choice answer names a release nobody made.
sqlite3 "$T/eve.wbsub" "UPDATE attempts SET pack_digest = '$(printf 'ab%.0s' $(seq 32))' WHERE question_id = 'hw.efficiency'" && ok || fail "eve's file edit"
wbt --json class --class "$CLASS" import "$T"/{mallory,alice,bob,carol,dave,eve,frank}.wbsub --deadline "$DEADLINE"
expect_rc 1 "imported, with flags"
IMP=$OUT
flags_of() { jq -r --arg u "$1" '.files[] | select(.user == $u) | [.flags[]?.kind] | sort | unique | join(",")' <<<"$IMP"; }
expect_flags() { local got; got=$(flags_of "$1"); [ "$got" = "$2" ] && ok || fail "$1's flags: '$got', expected '$2'"; }
expect_flags alice identity
expect_flags bob ""
expect_flags carol late
expect_flags dave ""
expect_flags eve "attempt gap,exam sitting,exam time,future time,implausible run,late,numbers differ,unknown release"
expect_flags frank "unknown release"
# Every flag says why.
expect_jq '[.files[].flags[]? | select((.reason // "") | length < 20)] | length' 0 "each flag has its reason"

# The gradebook: graded lessons only, flags withholding credit.
gb() { wbt --json class --class "$CLASS" grades example.class "$@"; GB=$OUT; }
pts() { jq -r --arg u "$1" '.students[] | select(.user == $u) | .points' <<<"$GB"; }
expect_pts() { local got; got=$(pts "$1"); [ "$got" = "$2" ] && ok || fail "$3: $1 has $got points, expected $2"; }
gb
expect_rc 0 "gradebook"
expect_jq '[.lessons[].lesson] | join(",")' "homework,exam" "the graded lessons only"
expect_jq '[.lessons[].max] | add' 10 "their points"
GB=$OUT
expect_pts alice 0 "two stores claim s001: nothing until cleared"
expect_pts bob 1 "bob: the second try at half points"
expect_pts carol 2.7 "carol: two right answers, each 0.9 for a day late"
expect_pts dave 3 "dave: the law (TUI) and two exam answers"
expect_pts eve 0 "eve: every edit withholds her credit"
expect_pts frank 0 "frank: answers outside the release earn nothing"
expect_jq '.students[] | select(.user == "eve") | .blocking_flags > 0' true "eve's flags withhold credit"

# The instructor checks alice's case and clears it; her points come.
wbt --json class --class "$CLASS" flags
id=$(jq -r '.flags[] | select(.kind == "identity") | .id' <<<"$OUT")
wbt class --class "$CLASS" clear "$id"
expect_rc 2 "a clear needs a reason"
wbt class --class "$CLASS" clear "$id" --why "mallory's prank: her own store under alice's id"
expect_rc 0 "cleared"
gb; expect_pts alice 7 "alice: 5 homework points and 2 exam points (the design answer awaits review)"
gb --count-automatic
got=$(pts alice); awk -v g="$got" 'BEGIN { exit !(g > 7 && g <= 9) }' && ok || fail "alice with the automatic design score: $got"
# An extension: carol's late flags cleared, her points are whole.
wbt --json class --class "$CLASS" flags
for id in $(jq -r '.flags[] | select(.kind == "late" and .student == "s003") | .id' <<<"$OUT"); do
  wbt class --class "$CLASS" clear "$id" --why "extension: ill on the deadline"
  expect_rc 0 "carol's extension"
done
gb; expect_pts carol 3 "carol with the extension"

# Canvas's CSV: a BOM, the header, a Points Possible row, a row per student.
wbt class --class "$CLASS" grades example.class --format canvas --csv "$T/canvas.csv"
expect_rc 0 "Canvas CSV"
python3 - "$T/canvas.csv" <<'PY' && ok || fail "the Canvas CSV"
import csv, sys
raw = open(sys.argv[1], "rb").read()
assert raw.startswith(b"\xef\xbb\xbf"), "no BOM"
rows = list(csv.reader(raw.decode("utf-8-sig").splitlines()))
head = rows[0]
assert head[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"], head
assert rows[1][0].strip() == "Points Possible", rows[1]
hw = [i for i, h in enumerate(head) if h.startswith("Homework 1")][0]
assert float(rows[1][hw]) == 6, rows[1]
by = {r[2]: r for r in rows[2:]}
assert set(by) == {"s001", "s002", "s003", "s004", "s005", "s006"}, sorted(by)
assert float(by["s001"][hw]) == 5 and float(by["s003"][hw]) == 3 and float(by["s005"][hw]) == 0, by
PY
wbt class --class "$CLASS" grades example.class --format canvas --csv "$T/canvas.csv"
expect_rc 7 "the CSV is never replaced"

# ---- a new version: 1.0.1 gives the speedup question 3 points and 2% ------------------
cp -r "$SRC" "$T/src2"
sed -i 's/version = "1.0.0"/version = "1.0.1"/' "$T/src2/pack.lua"
sed -i '0,/  points = 2,/s//  points = 3,/; s/tolerance = { rel = 0.005 }/tolerance = { rel = 0.02 }/' "$T/src2/homework.lua"
grep -q "rel = 0.02" "$T/src2/homework.lua" && ok || fail "1.0.1's tolerance"
wbt pack import "$T/src2"; expect_rc 0 "the instructor imports 1.0.1"
wbt --json pack release "$T/src2" "$T/release2"
expect_rc 0 "and releases it"
expect_jq .salt_reused true "with the class's salt"
wbs dave pack import "$T/release2"; expect_rc 0 "dave takes 1.0.1"
wbs dave answer example.class:hw.order "$(order_answer dave)"; expect_rc 0 "and answers under it"
wbs dave --json submit example.class --out "$T/dave2.wbsub"; expect_rc 0 "dave submits again"
wbt --json class --class "$CLASS" import "$T/dave2.wbsub"
expect_rc 0 "his new file imports clean"
gb
expect_pts dave 3.9 "his 1.0.0 answers keep their release; the new one, after the class deadline, 0.9"
# Points follow the current pack at once (alice's right speedup is 3 of 3);
# a grade that depends on the grader waits for the re-grade.
expect_pts alice 8 "alice: the new points at once"
expect_pts bob 1.5 "bob: his second try, half of 3, until the re-grade"
wbt --json class --class "$CLASS" regrade example.class --dry-run
expect_rc 0 "a dry run"
expect_jq '[.changes[] | select(.user == "bob" and .question == "hw.speedup") | .new] | first' 3 "bob's first try is now right"
expect_jq '[.changes[] | select(.user == "bob" and .question == "hw.speedup") | .why] | first' "grader changed" "and says why"
gb; expect_pts bob 1.5 "a dry run changes nothing"
wbt --json class --class "$CLASS" regrade example.class
expect_rc 0 "the re-grade"
gb
expect_pts bob 3 "bob after the re-grade"
expect_pts alice 8 "alice after the re-grade: her clear kept"
expect_pts eve 0 "eve's flags kept"
expect_pts carol 4 "carol's extension kept: 3 + 1"

# ---- official grades reach the students ----------------------------------------------
wbt class --class "$CLASS" feedback --out "$T/fb"
expect_rc 0 "feedback files"
wbs alice --json feedback import "$T/fb/s001.wbfb"
expect_rc 0 "alice imports hers"
wbs alice --json progress example.class
expect_jq '[.official[]? | select(.question == "hw.speedup") | .score] | first' 3 "her official grade for the speedup"
wbs alice progress example.class
expect_out "official grades from your instructor" "shown as official"
finish
