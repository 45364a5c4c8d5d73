#!/usr/bin/env bash
# OPEN HOLE (found by test_user_trial's cheater, not fixed): a submission may
# hold up to 1000 answers per question, and class import grades every one of
# them, even the answers to a sealed question past the tries its policy
# allows (which it flags "tries beyond the policy" and never counts). A
# 16 MB file of 999 distinct 16 KiB design answers to one sealed design
# question (3 tries) took 148 s of wall and 79 s of CPU to import on the
# 2-core VM; a pack with many design questions multiplies it (no budget of
# grading work per file). Expected: what cannot count is not graded (the
# report says how many were left ungraded), so a file's grading work is
# bounded by its policies. Skipped until that is so; WB_OPEN_HOLES=1 runs it.
. "$(dirname "$0")/lib.sh"
if [ "${WB_OPEN_HOLES:-0}" != 1 ]; then
  echo "SKIP: open hole: class import grades every answer past a sealed question's tries (a flood of design answers stalls the instructor's import); see this file's header"
  exit 77
fi
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
OUT=$("$WB" --db "$TEACH" --user prof class --class "$T/class.db" import "$T/cat.wbsub" 2>&1)
expect_out "tries beyond the policy" "the flood is flagged"
expect_out "198 not graded" "and what cannot count is not graded"
finish
