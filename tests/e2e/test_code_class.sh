#!/usr/bin/env bash
# Programming labs in a class (issue 29): four students run code answers
# on their machines and submit; the instructor's `class import` compiles
# and re-runs every file in the sandbox on the instructor's machine, stores
# each re-run as a "code" lab run of the instructor's (calls, machine,
# noise verdict, the student named), grades by that measurement, and flags
# a student's recorded speed more than 2x off it (here: one student edits
# the figure in the submission), naming the re-run.
source "$WB_SOURCE_DIR/tests/e2e/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
P="$PACKS/code"
TEACH="$T/teacher.db"
CLASS="$T/class.db"
wbs() { local u=$1; shift; OUT=$("$WB" --db "$T/$u.db" --user "$u" "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
wbt() { OUT=$("$WB" --db "$TEACH" --user prof "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }

cat >"$T/good.c" <<'C'
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
C
cat >"$T/wrong.c" <<'C'
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 3.0f * x[i];
}
C
# carol's file opens a file: her machine's run says so, and so does the re-run
cat >"$T/sneaky.c" <<'C'
#include <stdio.h>
void scale(int n, const float *x, float *y)
{
    FILE *f = fopen("/etc/hostname", "r");
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i] + (f ? 0.0f : 0.0f);
}
C
# erin's file is a compile bomb: compiled on the instructor's machine at
# import, it must not stall it, and the import goes on with the others
# (the other compile-time tricks, /dev/zero among them, are in
# test_code_exploits.sh: each student here costs a roofline measurement,
# minutes under the sanitizers on a busy machine)
cp "$WB_SOURCE_DIR/tests/code_exploits/compile_bomb.c" "$T/bomb.c"
declare -A file=([alice]=good.c [bob]=wrong.c [carol]=sneaky.c [erin]=bomb.c)
declare -A sid=([alice]=s001 [bob]=s002 [carol]=s003 [erin]=s005)
for u in alice bob carol erin; do
  wbs "$u" pack import "$P"; expect_rc 0 "$u imports the pack"
  wbs "$u" --json code run xp.scale "$T/${file[$u]}"
  wbs "$u" --json submit --out "$T/$u.wbsub" --student-id "${sid[$u]}"
  expect_rc 0 "$u submits"
done
# the submission carries the code itself
got=$(sqlite3 -batch "$T/alice.wbsub" "SELECT answer FROM attempts WHERE question_id = 'xp.scale'")
grep -qF "y[i] = 2.0f * x[i]" <<<"$got" && ok || fail "alice's submission lacks her code: $got"
# alice claims a thousand times her speed (ten times was within the 2x band
# when her own run happened on a loaded machine and the re-run did not)
alice_gflops=$(sqlite3 -batch "$T/alice.wbsub" "SELECT json_extract(params_json, '$.gflops') FROM attempts WHERE question_id = 'xp.scale'")
awk -v g="$alice_gflops" 'BEGIN { exit !(g > 0) }' && ok || fail "alice's submission has no speed: $alice_gflops"
sqlite3 "$T/alice.wbsub" "UPDATE attempts SET params_json = json_set(params_json, '$.gflops', json_extract(params_json, '$.gflops') * 1000) WHERE question_id = 'xp.scale'"

wbt pack import "$P"; expect_rc 0 "the instructor imports the pack"
start=$(date +%s)
wbt --json class --class "$CLASS" import "$T/alice.wbsub" "$T/bob.wbsub" "$T/carol.wbsub" \
  "$T/erin.wbsub"
[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] && ok || fail "class import: exit $RC ($ERR)"
took=$(( $(date +%s) - start ))
# Not a timed check (the import's time on a loaded machine is no verdict): that
# erin's compile could not stall it is shown by the import finishing within
# the suite's time limit and by her re-run's "stopped" below.
echo "the import took $took s"
# re-measured on this machine: a roofline run in the instructor's store
expect_sql_t() { local got; got=$(sqlite3 -batch -noheader "$1" "$2" 2>&1); [ "$got" = "$3" ] && ok || fail "${4:-}: SQL '$2' = '$got', expected '$3'"; }
expect_sql_t "$TEACH" "SELECT count(*) > 0 FROM lab_runs WHERE lab = 'roofline' AND status = 'done'" 1 \
  "the instructor's roofline"
# every re-run stored as a "code" lab run in the instructor's store, as a
# student's own `code run` is: one a submission, its parameters naming the
# student and the question, the machine, a noise verdict, and (for the runs
# that got to the timed calls) a sample per timed call (reps = 3)
expect_sql_t "$TEACH" "SELECT count(*) FROM lab_runs WHERE lab = 'code'" 4 "four re-runs stored"
expect_sql_t "$TEACH" "SELECT group_concat(s, ',') FROM (SELECT json_extract(params_json, '\$.student') || '/' || json_extract(params_json, '\$.student_user') AS s FROM lab_runs WHERE lab = 'code' ORDER BY s)" \
  "s001/alice,s002/bob,s003/carol,s005/erin" "each names its student"
expect_sql_t "$TEACH" "SELECT count(*) FROM lab_runs WHERE lab = 'code' AND json_extract(params_json, '\$.question') = 'test.code:xp.scale' AND status = 'done' AND json_extract(machine_json, '\$.cpu_model') IS NOT NULL AND json_extract(summary_json, '\$.noisy') IS NOT NULL" \
  4 "each done, with the question, the machine and the noise verdict"
alice_run=$(sqlite3 -batch "$TEACH" "SELECT id FROM lab_runs WHERE lab = 'code' AND json_extract(params_json, '\$.student') = 's001'")
expect_sql_t "$TEACH" "SELECT json_extract(summary_json, '\$.correct') || ' ' || (json_extract(summary_json, '\$.gflops') > 0) FROM lab_runs WHERE id = $alice_run" \
  "1 1" "alice's re-run: correct, with its speed"
expect_sql_t "$TEACH" "SELECT count(*) FROM lab_samples WHERE run_id = $alice_run AND series = 'call_ms' AND value > 0" 3 \
  "alice's re-run: a sample per timed call"
expect_sql_t "$TEACH" "SELECT json_extract(summary_json, '\$.correct') FROM lab_runs WHERE lab = 'code' AND json_extract(params_json, '\$.student') = 's002'" \
  0 "bob's re-run: not correct"
expect_sql_t "$TEACH" "SELECT json_extract(summary_json, '\$.message') LIKE '%opening a file%' FROM lab_runs WHERE lab = 'code' AND json_extract(params_json, '\$.student') = 's003'" \
  1 "carol's re-run: the refusal"
# the class's record of alice's answer names her re-run
expect_sql_t "$CLASS" "SELECT json_extract(params_json, '\$.run') FROM attempts WHERE question_id = 'xp.scale' AND feedback LIKE 'correct;%'" \
  "$alice_run" "alice's graded answer names the re-run"
# alice's speed flagged, graded by the instructor's measurement
wbt --json class --class "$CLASS" flags --all
expect_rc 0 "flags"
expect_jq '[.flags[] | select(.kind == "speed differs")] | length' 1 "one speed flag"
expect_jq '.flags[] | select(.kind == "speed differs") | .student' s001 "on alice"
expect_jq '.flags[] | select(.kind == "speed differs") | .reason | test("re-run here")' true \
  "saying it was re-run here"
expect_jq '.flags[] | select(.kind == "speed differs") | .reason | test("warpbench lab show '"$alice_run"'")' true \
  "naming the re-run's lab run"
# and the re-run reads like any lab run, its student among its parameters
wbt --json lab show "$alice_run"
expect_rc 0 "lab show of the re-run"
expect_jq '.params.student' s001 "lab show: the student"
# the gradebook: alice scores (from the re-run), bob and carol nothing
wbt --json class --class "$CLASS" grades test.code
expect_rc 0 "gradebook"
# (correct earns 2 of 4; the speed bands, measured on this loaded machine,
# may add nothing more, so the check is for the correctness points)
expect_jq '.students[] | select(.user == "alice") | .points >= 2' true "alice: correct, scored here"
expect_jq '.students[] | select(.user == "bob") | .points' 0 "bob: wrong"
expect_jq '.students[] | select(.user == "carol") | .points' 0 "carol: refused"
expect_jq '.students[] | select(.user == "erin") | .points' 0 "erin: refused"
# what the class store keeps of carol's re-run names the refusal
fb=$(sqlite3 -batch "$CLASS" "SELECT feedback FROM attempts WHERE question_id = 'xp.scale' AND feedback LIKE '%opening a file%'")
[ -n "$fb" ] && ok || fail "carol's re-run does not say it opened a file"
# erin's re-run says what stopped the compiler
fb=$(sqlite3 -batch "$CLASS" "SELECT feedback FROM attempts WHERE question_id = 'xp.scale' AND feedback LIKE '%does not compile (the compiler %: stopped)%'")
[ -n "$fb" ] && ok || fail "erin's re-run does not say the compiler was stopped"

echo "code class: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
