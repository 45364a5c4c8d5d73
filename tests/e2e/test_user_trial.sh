#!/usr/bin/env bash
# A new instructor and new students, from the documentation alone.
# 1. The pack lessons/FORMAT.md shows under "Running a graded course / In the
#    source" is taken out of FORMAT.md as written: it passes pack check, its
#    release works for a student, and the instructor's import grades it.
# 2. A course an instructor wrote from FORMAT.md alone
#    (tests/data/packs/user_trial: practice with variants, text, choice, a
#    claims rubric with graded samples and a lab-linked question; graded
#    homework; a timed exam with a calculator) is released to two honest
#    students and one who cheats. What the cheater tries that
#    test_class_sealed.sh does not: help during the exam, the release's files
#    as an answer key, a submission edited to look graded, to another
#    variant, to a longer exam, an answer over the size limit, a classmate's
#    file replayed under her own id, and numbers that would flood or drive
#    the instructor's terminal. Each earns nothing, or is refused, and the
#    instructor's report stays readable.
. "$(dirname "$0")/lib.sh"
TEACH="$T/teacher.db"
CLASS="$T/class.db"
wbs() { local u=$1; shift; OUT=$("$WB" --db "$T/$u.db" --user "$u" "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
wbt() { OUT=$("$WB" --db "$TEACH" --user prof "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
wbc() { wbt class --class "$CLASS" "$@"; }
# speedup USER QID: 1/(f + (1-f)/p) to three figures for the prompt's numbers.
speedup() {
  local pr f p
  wbs "$1" --json question "$2"; pr=$(jq -r .prompt <<<"$OUT")
  f=$(sed -nE 's/.*is ([0-9.]+) serial.*/\1/p' <<<"$pr"); p=$(sed -nE 's/.*do ([0-9]+) workers.*/\1/p' <<<"$pr")
  awk -v f="$f" -v p="$p" 'BEGIN { printf "%.3g\n", 1 / (f + (1 - f) / p) }'
}
# points SID: the gradebook's points of a student.
points() { wbc --json grades; jq -r --arg s "$1" '.students[] | select(.student_id == $s) | .points' <<<"$OUT"; }
expect_eq() { if [ "$1" = "$2" ]; then ok; else fail "$3: got '$1', expected '$2'"; fi; }

# ---- 1. FORMAT.md's own graded pack ------------------------------------------------------
FMT="$T/fmt"; mkdir -p "$FMT/src"
awk '/^### In the source/ { f = 1 } f && /^```lua/ { g = 1; next } g && /^```/ { exit } g { print }' \
  "$WB_SOURCE_DIR/lessons/FORMAT.md" |
  awk -v d="$FMT/src" '/^-- pack.lua/ { o = d "/pack.lua"; next } /^-- homework.lua/ { o = d "/homework.lua"; next } o { print > o }'
[ -s "$FMT/src/pack.lua" ] && [ -s "$FMT/src/homework.lua" ] && ok || fail "FORMAT.md's 'In the source' example was not found"
run pack check "$FMT/src"
expect_rc 0 "FORMAT.md's graded pack passes pack check"
wbt pack release "$FMT/src" "$FMT/rel"
expect_rc 0 "FORMAT.md's graded pack is released"
expect_out "proved: it carries nothing that grades" "and its release proved"
wbs fmtstudent pack import "$FMT/rel" --student-id f001
expect_rc 0 "a student imports the release"
wbs fmtstudent answer hw1.speedup "$(speedup fmtstudent hw1.speedup)"
expect_rc 0 "the student's answer is recorded"
expect_out "graded by your instructor" "as graded work"
wbs fmtstudent submit --out "$T/fmt.wbsub"
expect_rc 0 "the student submits"
# (--deadline: FORMAT.md's example deadline passes; this test must not.)
wbt class --class "$T/fmtclass.db" import "$T/fmt.wbsub" --deadline 2999-12-31
expect_rc 0 "the instructor imports it"
wbt class --class "$T/fmtclass.db" --json grades
expect_eq "$(jq -r '.students[0].points' <<<"$OUT")" 2 "the right answer earns the question's 2 points"

# ---- 2. the trial course: release and class ----------------------------------------------
SRC="$WB_SOURCE_DIR/tests/data/packs/user_trial"
REL="$T/rel"
run pack check "$SRC"
expect_rc 0 "the trial course passes pack check"
# a fixed class salt: with a fresh one, ann's and cat's homework numbers were the
# same one run in nine (3 x 3 variants), and the replay below went unseen
wbt pack release "$SRC" "$REL" --salt 01010101010101010101010101010101
expect_rc 0 "the trial course is released"
expect_out "2 sealed lessons, 6 sealed questions" "homework and exam sealed"
expect_out "left out 2 calculators" "the exam's calculator and the one that computes a sealed answer are left out"
# The release as an answer key: the sealed answers and the private hint are not there.
for key in Gustafson "S = 1/(f" "vanishes as p grows" " answer =" "concepts =" "model =" "grade =" "examples ="; do
  if grep -qF -- "$key" "$REL/hw.lua" "$REL/exam.lua"; then fail "the release holds '$key'"; else ok; fi
done
printf 'student_id,name,section\ns100,Ann A,A\ns200,Ben B,A\ns300,Cat C,B\n' >"$T/roster.csv"
wbc roster "$T/roster.csv"; expect_rc 0 "the roster is read"

for pair in ann:s100 ben:s200 cat:s300; do
  wbs "${pair%%:*}" pack import "$REL" --student-id "${pair#*:}"; expect_rc 0 "${pair%%:*} imports the release"
done
# order_for USER: the letters that put the exam's items in the right order.
order_for() {
  wbs "$1" --json question exam.order
  jq -r '[.choices | to_entries[] | {v: .value, l: ([.key + 97] | implode)}] as $c
         | ["registers", "L1 cache", "L2 cache", "DRAM"] | map(. as $x | $c[] | select(.v == $x) | .l) | join(" ")' <<<"$OUT"
}
DESIGN="Gradient communication overlaps with the backward computation of earlier layers. This hides communication time, so workers do not wait."
# ann: everything right. ben: the same, on his own numbers.
for u in ann ben; do
  wbs "$u" answer basics.speedup "$(speedup "$u" basics.speedup)"; expect_rc 0 "$u: practice graded at once"
  wbs "$u" answer hw.speedup "$(speedup "$u" hw.speedup)"; expect_rc 0 "$u: homework recorded"
  wbs "$u" answer hw.gustafson Gustafson; expect_rc 0 "$u: text recorded"
  wbs "$u" answer hw.karp a; expect_rc 0 "$u: choice recorded"
  wbs "$u" answer hw.overlap-design "$DESIGN"; expect_rc 0 "$u: design recorded"
  wbs "$u" exam start exam; expect_rc 0 "$u starts the exam"
  wbs "$u" --json question exam.ceiling
  f=$(jq -r .prompt <<<"$OUT" | sed -nE 's/.*is ([0-9.]+) serial.*/\1/p')
  wbs "$u" answer exam.ceiling "$(awk -v f="$f" 'BEGIN { printf "%.3g\n", 1 / f }')"; expect_rc 0 "$u: exam answer"
  wbs "$u" answer exam.order "$(order_for "$u")"; expect_rc 0 "$u: ordering answer"
  wbs "$u" exam submit exam; expect_rc 0 "$u submits the exam"
  wbs "$u" submit --out "$T/$u.wbsub"; expect_rc 0 "$u hands in"
done

# ---- cat, during the exam ------------------------------------------------------------
wbs cat exam start exam; expect_rc 0 "cat starts the exam"
wbs cat question exam.ceiling --hints 1
expect_rc 0 "cat reads the exam question"
grep -qF "The parallel part vanishes" <<<"$OUT" && fail "a sealed exam question showed its private hint" || ok
expect_out "(an exam: one answer per question)" "the exam's policy line is whole"
grep -qE "exam submit \)" <<<"$OUT" && fail "the exam line names no lesson: $OUT" || ok
wbs cat giveup exam.ceiling; expect_rc 7 "no give-up during an exam"
wbs cat calc exam.ceiling-calc --set f=0.1; expect_rc 5 "the exam's calculator is not in the release"
wbs cat calc basics.amdahl --set f=0.1 --set p=8; expect_rc 5 "nor the practice calculator that computes the homework"
wbs cat answer hw.speedup 5 --variant 2; expect_rc 2 "no other variant of graded work"
wbs cat answer hw.speedup 5; expect_rc 0 "cat guesses"
wbs cat answer hw.gustafson Gustafson; wbs cat answer hw.karp b
wbs cat answer hw.overlap-design "Overlap is good."
wbs cat answer exam.ceiling 10; wbs cat answer exam.order "a b c d"
wbs cat exam submit exam; expect_rc 0 "cat submits the exam"
wbs cat submit --out "$T/cat.wbsub"; expect_rc 0 "cat hands in"

# ---- the honest class, then cat's forgeries one class store each ---------------------
wbc import "$T/ann.wbsub" "$T/ben.wbsub" "$T/cat.wbsub"
expect_rc 0 "the instructor imports the class"
wbc flags; expect_out "0 flags" "honest work raises no flag"
expect_eq "$(points s100)" 6 "ann: every auto-graded point (the design waits for review)"
expect_eq "$(points s200)" 6 "ben: the same on his own numbers"
base=$(points s300)
wbc review hw.overlap-design
expect_out "automatic 2/2: Covered: overlap, hidden time." "the design answers wait for review, with the automatic score"
grep -q "^    What the grader read:" <<<"$OUT" && ok || fail "the grader's reading is not indented under its answer: $OUT"

# forge NAME FROM SQL: a copy of FROM with SQL applied and a new submission id,
# imported after ann's and ben's into a class store of its own.
forge() {
  local name=$1 from=$2 sql=$3
  cp "$from" "$T/$name.wbsub"
  sqlite3 "$T/$name.wbsub" "$sql; UPDATE meta SET value = '$(printf %s "$name" | sha256sum | cut -c1-32)' WHERE key = 'uid';" ||
    fail "$name: the forgery was not written"
  CLASS="$T/class-$name.db"
  wbc import "$T/ann.wbsub" "$T/ben.wbsub" "$T/$name.wbsub"
}
forge graded "$T/cat.wbsub" "UPDATE attempts SET sealed = 0, score = max, correct = 1"
expect_rc 1 "a submission that graded its sealed answers itself"
expect_out "answered outside the release" "is flagged"
expect_eq "$(points s300)" 0 "and earns nothing until cleared"

forge variant "$T/cat.wbsub" "UPDATE attempts SET variant = 2 WHERE question_id = 'hw.speedup'"
expect_out "another variant" "an answer moved to another variant is flagged"

forge longer "$T/cat.wbsub" "UPDATE exams SET deadline = '2999-01-01T00:00:00.000Z'"
expect_out "exam sitting" "a sitting given more time is flagged"

forge huge "$T/cat.wbsub" "UPDATE attempts SET answer = printf('%.70000c', 'x') WHERE question_id = 'hw.gustafson'"
expect_rc 6 "an answer over 64 KiB"
expect_err "longer than 65536 bytes" "is refused, saying why"
wbc --json grades
expect_eq "$(jq -r '[.students[] | select(.student_id == "s300")] | length' <<<"$OUT")" 0 "and nothing of it is imported"

# A classmate's file under cat's name and id: the per-student numbers give it away.
forge replay "$T/ann.wbsub" "UPDATE meta SET value = 'cat' WHERE key = 'user'; UPDATE meta SET value = 's300' WHERE key = 'student_id'"
expect_out "numbers differ" "a classmate's file replayed is flagged"
replayed=$(points s300)
awk -v p="$replayed" 'BEGIN { exit !(p < 6) }' && ok || fail "the replayed file earns $replayed, as much as its owner"
wbc flags
grep -q "numbers differ .*hw.speedup" <<<"$OUT" && ok || fail "the replayed homework speedup is withheld: $OUT"

# Numbers that would flood the report (400 KB) or drive the terminal (ESC, BEL).
forge flood "$T/cat.wbsub" "UPDATE attempts SET params_json = printf('%.200000c', '[') || printf('%.200000c', ']') WHERE question_id = 'hw.speedup'"
expect_out "numbers differ" "numbers that are no numbers are flagged"
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' <<<"$OUT")
[ "$longest" -lt 2000 ] && ok || fail "the import report quotes the forged numbers whole: a line of $longest characters"
wbc flags
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' <<<"$OUT")
[ "$longest" -lt 2000 ] && ok || fail "class flags quotes the forged numbers whole: a line of $longest characters"
forge escape "$T/cat.wbsub" "UPDATE attempts SET params_json = '{\"f\":\"' || char(27) || '[2J' || char(27) || ']0;x' || char(7) || '\",\"p\":8}' WHERE question_id = 'hw.speedup'"
expect_out "numbers differ" "numbers with terminal controls are flagged"
wbc flags
if LC_ALL=C grep -q $'\x1b\|\x07' <<<"$OUT"; then fail "a control character reached the instructor's terminal"; else ok; fi
expect_out '^[[2J' "shown escaped instead"

CLASS="$T/class.db"
expect_eq "$(points s300)" "$base" "cat's own file is graded as it is"
finish
