# The crafted files of issue 25, made from a real submission the way a
# hostile student would, with the sqlite3 shell. Sourced by
# tests/e2e/test_untrusted.sh (which imports each) and by
# tests/fuzz/make_files_corpus.sh (which keeps them as the fuzz corpus).
# Needs T (a folder holding base.wbsub) and fail.

# The columns of a submission's attempts, for copying rows.
ATT_COLS="id, pack_id, question_id, variant, answer, certainty, created_at, params_json, grader_rev, pack_version, pack_digest, valid, score, max, correct, feedback, regraded, lab_run"

# craft NAME SQL...: a copy of the real file with each SQL run by the sqlite3 shell.
craft() {
  local name=$1; shift
  cp "$T/base.wbsub" "$T/$name.wbsub"
  for s in "$@"; do
    sqlite3 -batch "$T/$name.wbsub" "$s" >/dev/null 2>"$T/craft.err" || fail "crafting $name: $(cat "$T/craft.err")"
  done
  rm -f "$T/$name.wbsub-journal"
}
# null_by_schema NAME TABLE COLUMN TYPE: the column's NOT NULL edited out of
# the schema text, then a NULL written (integrity_check then passes).
null_by_schema() {
  craft "$1" "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, '$3 $4 NOT NULL', '$3 $4') WHERE name = '$2'" \
             "UPDATE $2 SET $3 = NULL WHERE rowid = (SELECT min(rowid) FROM $2)"
}
# null_by_recreate NAME TABLE COLUMN: the table recreated without the
# column's NOT NULL (its rows copied), then a NULL written.
null_by_recreate() {
  local sql
  sql=$(sqlite3 -batch "$T/base.wbsub" "SELECT sql FROM sqlite_schema WHERE name = '$2'" | tr '\n' ' ' | sed -E "s/ $3 ([A-Z]+) NOT NULL/ $3 \1/")
  craft "$1" "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; ALTER TABLE $2 RENAME TO old_$2; $sql; INSERT INTO $2 SELECT * FROM old_$2; DROP TABLE old_$2; UPDATE $2 SET $3 = NULL WHERE rowid = (SELECT min(rowid) FROM $2)"
}

# craft_cases: every case below, as $T/<name>.wbsub.
craft_cases() {
# The issue's NULL cases (each crashed `class import` with SIGSEGV before).
null_by_schema   null_packs_digest        packs       digest       TEXT
null_by_recreate null_attempts_qid        attempts    question_id
null_by_schema   null_attempts_pack       attempts    pack_id      TEXT
null_by_schema   null_attempts_answer     attempts    answer       TEXT
null_by_recreate null_attempts_answer2    attempts    answer
null_by_schema   null_giveups_pack        giveups     pack_id      TEXT
null_by_schema   null_giveups_question    giveups     question_id  TEXT
null_by_schema   null_giveups_variant     giveups     variant      INTEGER
null_by_schema   null_giveups_last        giveups     last_attempt INTEGER
null_by_schema   null_giveups_created     giveups     created_at   TEXT
null_by_schema   null_samples_series      lab_samples series       TEXT
null_by_recreate null_runs_lab            lab_runs    lab
null_by_schema   null_runs_status         lab_runs    status       TEXT
# A table replaced by a view: a recursive one (spun at 100% CPU before), and
# one whose answer is 300 MB (73 s and 2 GB before).
craft view_recursive "ALTER TABLE attempts RENAME TO a0" \
  "CREATE VIEW attempts AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT a0.* FROM a0, r"
craft view_packs "ALTER TABLE packs RENAME TO p0" \
  "CREATE VIEW packs AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT p0.* FROM p0, r"
craft view_300mb "ALTER TABLE attempts RENAME TO a0" \
  "CREATE VIEW attempts AS SELECT id, pack_id, question_id, variant, replace(hex(zeroblob(150000000)), '0', 'x') AS answer, certainty, created_at, params_json, grader_rev, pack_version, pack_digest, valid, score, max, correct, feedback, regraded, lab_run FROM a0"
craft trigger "CREATE TRIGGER t AFTER INSERT ON packs BEGIN SELECT 1; END"
craft extra_table "CREATE TABLE notes (x TEXT)"
# NUL inside an answer ("2\0.5" was graded as "2"), and in the student's name.
craft nul_answer "UPDATE attempts SET answer = CAST(x'32002e35' AS TEXT) WHERE question_id = 'speedup'"
craft nul_user "UPDATE meta SET value = CAST(x'616c69636500626f62' AS TEXT) WHERE key = 'user'"
# Over the product's limits: an answer longer than any question grades, and
# more answers at one question than a store records (a million imported in
# 43 s before).
craft long_answer "UPDATE attempts SET answer = printf('%.*c', 70000, '7') WHERE question_id = 'speedup'"
craft many_attempts "WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < 2001) INSERT INTO attempts ($ATT_COLS) SELECT i, pack_id, question_id, variant, answer, certainty, created_at, params_json, grader_rev, pack_version, pack_digest, valid, score, max, correct, feedback, regraded, NULL FROM n, attempts WHERE question_id = 'speedup'"
# A name that would print a line of its own in the report.
craft newline_user "UPDATE meta SET value = 'alice' || char(10) || 'class x: 9 imported' WHERE key = 'user'"
}
