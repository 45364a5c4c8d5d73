#!/usr/bin/env bash
# A store that cannot grow during a lab run, without root: a file size limit
# (ulimit -f) makes every write past it fail with EFBIG, as a full disk makes
# them fail with ENOSPC. The run is not left "running" (nor killed by
# SIGXFSZ): it is closed as failed with the real reason, the exit code is 6,
# and "N samples recorded" counts only what the store committed. A read-only
# command that cannot even open the store says why, not "disk I/O error".
# (tests/e2e/test_disk_full_root.sh does the same on a real full tmpfs.)
. "$(dirname "$0")/lib.sh"

run init
expect_rc 0 "init"

# 1 MiB: the write-ahead log reaches it after a few thousand samples
(
  ulimit -f 1024
  exec "$WB" --db "$DB" lab run selftest --set steps=200000 --set interval_ms=0 \
    >"$T/out" 2>"$T/err"
)
RC=$?
OUT=$(cat "$T/out")
ERR=$(cat "$T/err")
expect_rc 6 "a store that cannot grow fails the run"
expect_err "the file size limit was reached" "says why"
grep -q "disk I/O error" <<<"$ERR" && ! grep -q "file size limit" <<<"$ERR" &&
  fail "only 'disk I/O error': $ERR" || ok
expect_sql "SELECT status FROM lab_runs" failed "closed as failed at once, not left running"
expect_sql "SELECT error LIKE '%file size limit%' FROM lab_runs" 1 "with the real reason"
recorded=$(sed -n 's/.* \([0-9][0-9]*\) samples recorded (of \([0-9][0-9]*\) measured).*/\1 \2/p' <<<"$OUT")
set -- $recorded
[ $# -eq 2 ] && ok || fail "prints recorded and measured counts: $OUT"
expect_sql "SELECT COUNT(*) FROM lab_samples" "${1:-x}" "N samples recorded = N samples in the store"
[ "${1:-0}" -lt "${2:-0}" ] && ok || fail "fewer recorded than measured ($recorded)"
[ "$(find "$T" -name 'store.db-run*' | wc -l)" = 0 ] && ok || fail "the run's side file is left"

# the next command finds nothing to close: the reason stays
run lab runs
expect_rc 0 "lab runs"
expect_sql "SELECT error LIKE '%file size limit%' FROM lab_runs" 1 "the reason is kept"

# not even the store's shared-memory file can be made: a clear refusal
ERR=$( (ulimit -f 0; "$WB" --db "$DB" lessons 2>&1 >/dev/null) )
RC=$?
expect_rc 6 "lessons with no room at all"
expect_err "the file size limit was reached" "says why, not just 'disk I/O error'"

finish
