#!/usr/bin/env bash
# Files from students are untrusted input (issue 25). Every file here is
# crafted from a real `warpbench submit` (or `class feedback`) output with
# the sqlite3 shell, as a hostile student would: a NOT NULL dropped and a
# NULL written (by recreating the table or by editing the schema), a table
# replaced by a recursive view, a view whose answer is 300 MB, a -wal
# beside the file, a NUL inside an answer, answers over the product's
# limits, a trigger. Each is refused with its reason and without a crash;
# the class store is untouched by a refused file; a batch goes on to the
# next file and prints its report even with stdout redirected. Text from a
# file is escaped where it is shown or written (CLI, CSV, JSON). Races: 8
# answers at once on a 2-try question store exactly 2 tries; two imports
# of the same file at once both succeed.
. "$(dirname "$0")/lib.sh"
P="$PACKS/class"
TEACH="$T/teacher.db"
CLASS="$T/class.db"

wbs() { local u=$1; shift; OUT=$("$WB" --db "$T/$u.db" --user "$u" "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
wbt() { OUT=$("$WB" --db "$TEACH" --user prof "$@" 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr"); }
# The whole class store as text: a refused file must leave it as it was.
store_text() { sqlite3 -batch "$CLASS" .dump | sha256sum; }

# ---- a real submission ----------------------------------------------------------
wbs alice pack import "$P";                             expect_rc 0 "alice imports the pack"
wbs alice answer test.class:speedup 2.5;                 expect_rc 0 "alice answers"
wbs alice answer test.class:design "We shard the keys across servers and go async."
expect_rc 0 "a design answer"
wbs alice giveup test.class:variant;                     expect_rc 0 "a give-up"
wbs alice lab run selftest --set workers=2 --set steps=4 --set interval_ms=0
expect_rc 0 "a lab run"
wbs alice answer test.class:worker_total 30;             expect_rc 0 "answered from the run"
wbs alice submit --out "$T/base.wbsub" --student-id s001; expect_rc 0 "alice submits"
for t in packs attempts giveups lab_runs lab_samples; do
  [ "$(sqlite3 "$T/base.wbsub" "SELECT count(*) > 0 FROM $t")" = 1 ] && ok || fail "the base file has $t rows"
done

wbt pack import "$P"; expect_rc 0 "the instructor imports the pack"
wbt class --class "$CLASS" import "$T/base.wbsub"; expect_rc 0 "the real file imports"
BASE_STORE=$(store_text)

. "$(dirname "$0")/untrusted_cases.sh"
craft_cases
# A -wal beside the file: imported as is, the import would differ from what
# sqlite3 shows.
cp "$T/base.wbsub" "$T/with_wal.wbsub"
cp "$T/base.wbsub" "$T/with_wal.wbsub-wal"

# expect_refused_file NAME TEXT: importing it alone is refused (exit 6, not a
# crash) with TEXT, and the class store is untouched.
expect_refused_file() {
  wbt class --class "$CLASS" import "$T/$1.wbsub"
  expect_rc 6 "$1 is refused"
  expect_err "$1.wbsub: refused: " "$1: the reason is given"
  expect_err "$2" "$1"
  [ "$(store_text)" = "$BASE_STORE" ] && ok || fail "$1 changed the class store"
}
expect_refused_file null_packs_digest       "its table packs is not the format's"
expect_refused_file null_attempts_qid       "attempts"
expect_refused_file null_attempts_pack      "its table attempts is not the format's"
expect_refused_file null_attempts_answer    "its table attempts is not the format's: \"... answer TEXT, certainty"
expect_refused_file null_attempts_answer2   "attempts"
expect_refused_file null_giveups_pack       "its table giveups is not the format's"
expect_refused_file null_giveups_question   "its table giveups is not the format's"
expect_refused_file null_giveups_variant    "its table giveups is not the format's"
expect_refused_file null_giveups_last       "its table giveups is not the format's"
expect_refused_file null_giveups_created    "its table giveups is not the format's"
expect_refused_file null_samples_series     "its table lab_samples is not the format's"
expect_refused_file null_runs_lab           "lab_runs"
expect_refused_file null_runs_status        "its table lab_runs is not the format's"
expect_refused_file view_recursive          "its attempts is a view, where the format has a table"
expect_refused_file view_packs              "its packs is a view, where the format has a table"
expect_refused_file view_300mb              "its attempts is a view, where the format has a table"
expect_refused_file trigger                 "it has a trigger t, which the format does not have"
expect_refused_file extra_table             "it has a table notes, which the format does not have"
expect_refused_file nul_answer              "malformed submission: attempts row 1: answer holds a NUL byte"
expect_refused_file nul_user                "malformed submission: meta row"
expect_refused_file long_answer             "answer is longer than 65536 bytes (70000)"
expect_refused_file many_attempts           "more than 1000 attempts at test.class:speedup"
expect_refused_file newline_user            "holds control characters"
expect_refused_file with_wal                "a -wal file lies beside it"

# ---- a batch goes on --------------------------------------------------------------
# The refused files first and between, the real one last; stdout to a file.
rm -f "$T/with_wal.wbsub-wal"
"$WB" --db "$T/bob.db" --user bob pack import "$P" >/dev/null 2>&1
"$WB" --db "$T/bob.db" --user bob answer test.class:speedup 1.18 >/dev/null 2>&1
"$WB" --db "$T/bob.db" --user bob submit --out "$T/bob.wbsub" >/dev/null 2>&1 || fail "bob submits"
BATCH=("$T/null_attempts_answer.wbsub" "$T/view_recursive.wbsub" "$T/view_300mb.wbsub"
       "$T/nul_answer.wbsub" "$T/many_attempts.wbsub" "$T/bob.wbsub" "$T/trigger.wbsub")
"$WB" --db "$TEACH" --user prof class --class "$CLASS" import "${BATCH[@]}" >"$T/report.txt" 2>"$T/report.err"
RC=$?
[ "$RC" -eq 6 ] && ok || fail "a batch with refused files exits 6, got $RC ($(cat "$T/report.err"))"
grep -q "bob.wbsub: bob: new" "$T/report.txt" && ok || fail "the file after the refused ones is imported: $(cat "$T/report.txt")"
grep -q "1 imported, 0 unchanged, 6 refused" "$T/report.txt" && ok || fail "the report is printed to a file: $(cat "$T/report.txt")"
[ "$(grep -c ': refused: ' "$T/report.err")" -eq 6 ] && ok || fail "each refused file named: $(cat "$T/report.err")"
[ "$(sqlite3 "$CLASS" "SELECT group_concat(user) FROM (SELECT user FROM submissions ORDER BY user)")" = alice,bob ] && ok \
  || fail "the class store holds the two real files"
[ "$(sqlite3 "$CLASS" 'PRAGMA integrity_check')" = ok ] && ok || fail "class store integrity"
wbt --json class --class "$CLASS" import "${BATCH[@]}"
expect_rc 6 "the JSON report of the same batch"
expect_jq '[.files[] | .result] | join(",")' refused,refused,refused,refused,refused,unchanged,refused "every file has a result"
expect_jq '.files[1].error | test("is a view")' true "with its reason"

# ---- text from files, escaped where it is shown or written -------------------------
# A design answer that would print a fake "automatic 4/4" line, and names
# and ids as an edited class store may hold them (older stores, or anything
# that reached one before the import refused them).
craft fake_line "UPDATE meta SET value = 'carol' WHERE key = 'user'" \
  "UPDATE meta SET value = 'u-carol' WHERE key = 'uid'" \
  "UPDATE meta SET value = 's003' WHERE key = 'student_id'" \
  "UPDATE attempts SET answer = 'We shard the keys.' || char(10) || 'automatic 4/4: perfect' WHERE question_id = 'design'"
wbt class --class "$CLASS" import "$T/fake_line.wbsub"
expect_rc 1 "carol's file imports (its edited design answer flagged: exit 1)"
wbt class --class "$CLASS" review --all
expect_rc 0 "the review queue in text"
expect_out "We shard the keys.^Jautomatic 4/4: perfect" "the answer's newline is shown, not printed"
grep -q '^automatic 4/4' <<<"$OUT" && fail "the answer printed a line of its own: $OUT" || ok
sqlite3 "$CLASS" "UPDATE students SET user = 'x' || char(27) || '[2J' || char(133) || char(8238) || 'y' WHERE student_id = 's003'"
sqlite3 "$CLASS" "UPDATE students SET user = ';=1+1' WHERE user = 'bob'"
wbt class --class "$CLASS" grades test.class --csv -
expect_rc 0 "the CSV to stdout"
grep -q $'\x1b' <<<"$OUT" && fail "ESC written raw to the CSV" || ok
grep -q $'\xc2\x85' <<<"$OUT" && fail "a C1 control written raw to the CSV" || ok
grep -q $'\xe2\x80\xae' <<<"$OUT" && fail "U+202E written raw to the CSV" || ok
expect_out 'x^[[2J<U+0085><U+202E>y' "controls shown escaped in the CSV"
expect_out '";=1+1"' "a cell starting with ';' is quoted"
wbt --json class --class "$CLASS" grades test.class
expect_rc 0 "the gradebook in JSON"
grep -q $'\xc2\x85\|\xe2\x80\xae\|\x1b' <<<"$OUT" && fail "controls written raw to JSON" || ok
expect_out 'x\u001b[2J\u0085\u202ey' "escaped as \\u in JSON string values"
expect_jq '.students[] | select(.student_id == "s003") | .user' $'x\e[2J\xc2\x85\xe2\x80\xaey' "and read back as they were"

# ---- a feedback file a student imports ---------------------------------------------
A=$(sqlite3 "$CLASS" "SELECT src_id FROM attempts WHERE question_id = 'design' AND submission = (SELECT id FROM submissions WHERE user = 'alice')")
wbt class --class "$CLASS" review set "$A" --concept sharding=1 --concept asynchrony=1 --comment "Good."
expect_rc 0 "a review of alice's design"
wbt class --class "$CLASS" feedback --out "$T/fb"
expect_rc 0 "feedback files"
cp "$T/fb/s001.wbfb" "$T/fb_null.wbfb"
sqlite3 "$T/fb_null.wbfb" "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'answer_sha TEXT NOT NULL', 'answer_sha TEXT') WHERE name = 'reviews'"
sqlite3 "$T/fb_null.wbfb" "UPDATE reviews SET answer_sha = NULL"
wbs alice feedback import "$T/fb_null.wbfb"
expect_rc 6 "a feedback file with a NULL answer digest is refused (it crashed before)"
expect_err "its table reviews is not the format's" "with its reason"
cp "$T/fb/s001.wbfb" "$T/fb_view.wbfb"
sqlite3 "$T/fb_view.wbfb" "ALTER TABLE reviews RENAME TO r0; CREATE VIEW reviews AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT r0.* FROM r0, r"
wbs alice feedback import "$T/fb_view.wbfb"
expect_rc 6 "a feedback file with a recursive view is refused"
expect_err "its reviews is a view" "with its reason"
wbs alice --json feedback import "$T/fb/s001.wbfb"
expect_rc 0 "the real feedback file imports"
expect_jq .added 1 "its review"

# ---- races ----------------------------------------------------------------------------
# 8 answers at once by one user on a 2-try question (a choice: 2 tries):
# exactly 2 stored; the others are refused as closed.
wbs racer pack import "$P"; expect_rc 0 "racer's store"
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$WB" --db "$T/racer.db" --user racer answer test.class:bound a >"$T/race.$i.out" 2>"$T/race.$i.err" &
  pids+=($!)
done
n_ok=0; n_closed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"; rc=$?
  case $rc in 1) n_ok=$((n_ok + 1)) ;; 7) n_closed=$((n_closed + 1)) ;; *) fail "answer $i exited $rc: $(cat "$T/race.$((i + 1)).err")" ;; esac
done
[ "$(sqlite3 "$T/racer.db" "SELECT count(*) FROM attempts WHERE question_id = 'bound' AND valid")" = 2 ] && ok \
  || fail "8 answers at once stored $(sqlite3 "$T/racer.db" "SELECT count(*) FROM attempts WHERE question_id = 'bound'") tries, not 2"
[ "$n_ok" -eq 2 ] && [ "$n_closed" -eq 6 ] && ok || fail "2 recorded (exit 1: wrong) and 6 closed (exit 7): $n_ok and $n_closed"
wbs racer --json progress test.class
expect_jq '[.questions[] | select(.question == "bound") | .tries_used] | .[0]' 2 "progress: 2 tries used"

# Two imports of the same new file at once: both exit 0, one imports it and
# the other finds it imported.
"$WB" --db "$T/dan.db" --user dan pack import "$P" >/dev/null 2>&1
"$WB" --db "$T/dan.db" --user dan answer test.class:speedup 2.5 >/dev/null 2>&1
"$WB" --db "$T/dan.db" --user dan submit --out "$T/dan.wbsub" >/dev/null 2>&1 || fail "dan submits"
# 900 copies of his answer: grading them takes long enough for both imports
# to look the file up before either stores it
sqlite3 "$T/dan.wbsub" "WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 999) INSERT INTO attempts ($ATT_COLS) SELECT i, pack_id, question_id, variant, answer, certainty, created_at, params_json, grader_rev, pack_version, pack_digest, valid, score, max, correct, feedback, regraded, NULL FROM n, attempts WHERE question_id = 'speedup'"
"$WB" --db "$TEACH" --user prof --json class --class "$CLASS" import "$T/dan.wbsub" >"$T/imp1.json" 2>"$T/imp1.err" & p1=$!
"$WB" --db "$TEACH" --user prof --json class --class "$CLASS" import "$T/dan.wbsub" >"$T/imp2.json" 2>"$T/imp2.err" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
[ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && ok || fail "two imports at once: exits $r1 and $r2 ($(cat "$T/imp1.err" "$T/imp2.err"))"
[ "$(jq -rs '[.[].files[0].result] | sort | join(",")' "$T/imp1.json" "$T/imp2.json")" = new,unchanged ] && ok \
  || fail "one imported, the other found it imported: $(cat "$T/imp1.json" "$T/imp2.json")"
[ "$(sqlite3 "$CLASS" "SELECT count(*) FROM submissions WHERE user = 'dan'")" = 1 ] && ok || fail "stored once"
finish
