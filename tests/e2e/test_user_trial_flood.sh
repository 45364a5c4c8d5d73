#!/usr/bin/env bash
# A flood of answers must not stall the instructor's import (found by
# test_user_trial's cheater): a submission may hold 1000 answers per
# question, and class import used to grade every one, even the answers to a
# sealed question past the tries its policy allows. A 16 MB file of 999
# distinct 16 KiB design answers to one 3-try question took 148 s of wall
# and 79 s of CPU on the 2-core VM. Now what cannot count is not graded,
# and of a design question only the latest 50 answers of a file are (the
# report counts the rest as "not graded", each flagged with its reason).
source "$WB_SOURCE_DIR/tests/e2e/lib.sh"
TEACH="$T/teacher.db"
REL="$T/rel"
"$WB" --db "$TEACH" --user prof pack release "$WB_SOURCE_DIR/tests/data/packs/user_trial" "$REL" >/dev/null 2>&1 || fail "the release"
"$WB" --db "$T/cat.db" --user cat pack import "$REL" --student-id s300 >/dev/null 2>&1 || fail "cat imports"
"$WB" --db "$T/cat.db" --user cat answer hw.overlap-design "Overlap is good." >/dev/null 2>&1
"$WB" --db "$T/cat.db" --user cat submit --out "$T/cat.wbsub" >/dev/null 2>&1 || fail "cat submits"
# 200 more answers, each different, to the sealed design question.
sqlite3 "$T/cat.wbsub" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
  INSERT INTO attempts (id, pack_id, question_id, variant, answer, certainty, created_at, params_json, grader_rev,
    pack_version, pack_digest, valid, score, max, correct, feedback, regraded, lab_run, sealed, seq, parsed)
  SELECT a.id + i, a.pack_id, a.question_id, a.variant, 'Communication overlaps computation number ' || i || '.',
    a.certainty, a.created_at, a.params_json, a.grader_rev, a.pack_version, a.pack_digest, a.valid, a.score, a.max,
    a.correct, a.feedback, a.regraded, a.lab_run, a.sealed, a.seq + i, a.parsed
  FROM attempts a, n WHERE a.question_id = 'hw.overlap-design'" || fail "the flood was not written"
# and 120 to a practice design question, whose tries are not limited
"$WB" --db "$T/cat.db" --user cat answer basics.gpu-design "GPUs hide latency." >/dev/null 2>&1
"$WB" --db "$T/cat.db" --user cat submit --out "$T/cat2.wbsub" >/dev/null 2>&1 || fail "cat submits again"
sqlite3 "$T/cat2.wbsub" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 119)
  INSERT INTO attempts (id, pack_id, question_id, variant, answer, certainty, created_at, params_json, grader_rev,
    pack_version, pack_digest, valid, score, max, correct, feedback, regraded, lab_run, sealed, seq, parsed)
  SELECT a.id + 1000 + i, a.pack_id, a.question_id, a.variant, 'GPUs hide latency by switching warps, try ' || i || '.',
    a.certainty, a.created_at, a.params_json, a.grader_rev, a.pack_version, a.pack_digest, a.valid, a.score, a.max,
    a.correct, a.feedback, a.regraded, a.lab_run, a.sealed, a.seq + 1000 + i, a.parsed
  FROM attempts a, n WHERE a.question_id = 'basics.gpu-design'" || fail "the second flood was not written"
OUT=$("$WB" --db "$TEACH" --user prof class --class "$T/class.db" import "$T/cat.wbsub" 2>&1)
expect_out "tries beyond the policy" "the flood is flagged"
expect_out "198 not graded" "and what cannot count is not graded"
OUT=$("$WB" --db "$TEACH" --user prof --json class --class "$T/class2.db" import "$T/cat2.wbsub" 2>&1)
expect_jq '.files[0].skipped' 70 "of 120 practice design answers, the latest 50 are graded"
expect_jq '[.files[0].flags[] | select(.reason | test("only the latest 50 of the 120"))] | length' 70 \
  "each ungraded one says why"
n=$(sqlite3 -batch "$T/class2.db" "SELECT count(*) FROM attempts WHERE question_id = 'basics.gpu-design' AND score IS NOT NULL")
[ "$n" = 50 ] && ok || fail "the class store holds $n graded practice design answers, expected 50"
finish
