#!/usr/bin/env bash
# A class import killed with SIGKILL at several points — inside a file's
# transaction with every row written (fault hook), between two files (fault
# hook), and at moments chosen by a timer while a longer import runs —
# leaves a class store that passes PRAGMA integrity_check and holds whole
# submissions only; importing again completes it, to the same gradebook as
# an import that was never killed.
. "$(dirname "$0")/lib.sh"
P="$PACKS/class"
TEACH="$T/teacher.db"

wbs() { "$WB" --db "$T/students.db" --user "$1" "${@:2}" >/dev/null 2>&1; }
# Students in one store (each a user of it), each submitting twice: the
# second file of each supersedes the first.
"$WB" --db "$T/students.db" pack import "$P" >/dev/null 2>&1 || fail "pack import"
"$WB" --db "$TEACH" pack import "$P" >/dev/null 2>&1 || fail "instructor's pack import"
FILES=()
for i in 1 2 3 4 5 6; do
  u="s$i"
  wbs "$u" answer test.class:speedup "$([ $((i % 2)) -eq 0 ] && echo 2.5 || echo 1.18)"
  wbs "$u" answer test.class:bound b
  wbs "$u" submit --out "$T/$u-a.wbsub" || fail "submit $u"
  wbs "$u" answer test.class:design "We shard the keys across servers."
  wbs "$u" submit --out "$T/$u-b.wbsub" || fail "submit $u again"
  FILES+=("$T/$u-a.wbsub" "$T/$u-b.wbsub")
done
ok

# The reference: imported without a kill.
"$WB" --db "$TEACH" class --class "$T/ref.db" import "${FILES[@]}" >/dev/null 2>&1
[ $? -eq 0 ] && ok || fail "reference import"
REF=$("$WB" --db "$TEACH" --json class --class "$T/ref.db" grades | jq -c '[.students[] | {student, points, design_pending}]')

# check_store DB WHAT: integrity, and only whole submissions (every one has
# all its attempts: a file's attempts are 1 or 2 or 3 per the answers).
check_store() {
  local got
  got=$(sqlite3 -batch "$1" "PRAGMA integrity_check")
  [ "$got" = ok ] && ok || fail "$2: integrity_check says $got"
  # Killed while the schema was being made: an empty file, nothing to count.
  [ "$(sqlite3 -batch "$1" "SELECT count(*) FROM sqlite_master WHERE name = 'submissions'")" = 1 ] || return 0
  got=$(sqlite3 -batch "$1" "SELECT count(*) FROM submissions s WHERE n_attempts <> (SELECT count(*) FROM attempts a WHERE a.submission = s.id)")
  [ "$got" = 0 ] && ok || fail "$2: $got submissions stored in part"
  got=$(sqlite3 -batch "$1" "SELECT count(*) FROM students WHERE current IS NOT NULL AND current NOT IN (SELECT id FROM submissions)")
  [ "$got" = 0 ] && ok || fail "$2: a student counts a submission that is not there"
}

# finish_import DB WHAT: importing everything again completes the store.
finish_import() {
  "$WB" --db "$TEACH" class --class "$1" import "${FILES[@]}" >/dev/null 2>&1
  local rc=$?
  [ $rc -eq 0 ] && ok || fail "$2: the import after the kill exits $rc"
  check_store "$1" "$2 (completed)"
  local got
  got=$("$WB" --db "$TEACH" --json class --class "$1" grades | jq -c '[.students[] | {student, points, design_pending}]')
  [ "$got" = "$REF" ] && ok || fail "$2: gradebook $got, expected $REF"
}

# Inside a transaction, rows written, not committed: the first file, a middle one.
for n in 1 4; do
  C="$T/before-commit-$n.db"
  WARPBENCH_FAULT=kill-before-commit=$n "$WB" --db "$TEACH" class --class "$C" import "${FILES[@]}" >/dev/null 2>&1
  rc=$?
  [ $rc -eq 137 ] && ok || fail "killed before commit $n: exit $rc"
  check_store "$C" "killed inside file $n's transaction"
  got=$(sqlite3 -batch "$C" "SELECT count(*) FROM submissions")
  [ "$got" = $((n - 1)) ] && ok || fail "killed inside file $n: $got submissions stored, expected $((n - 1))"
  finish_import "$C" "killed inside file $n"
done

# Between two files.
C="$T/after-import.db"
WARPBENCH_FAULT=kill-after-import=3 "$WB" --db "$TEACH" class --class "$C" import "${FILES[@]}" >/dev/null 2>&1
rc=$?
[ $rc -eq 137 ] && ok || fail "killed after file 3: exit $rc"
check_store "$C" "killed after file 3"
[ "$(sqlite3 -batch "$C" "SELECT count(*) FROM submissions")" = 3 ] && ok || fail "three files stored"
finish_import "$C" "killed after file 3"

# At moments a timer picks, over an import of many files.
for delay in 0.02 0.05 0.1 0.2 0.4; do
  C="$T/timed-$delay.db"
  "$WB" --db "$TEACH" class --class "$C" import "${FILES[@]}" "${FILES[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if [ -f "$C" ]; then
    check_store "$C" "killed after ${delay}s"
    finish_import "$C" "killed after ${delay}s"
  else
    ok # killed before the store existed: nothing to check
  fi
done
finish
