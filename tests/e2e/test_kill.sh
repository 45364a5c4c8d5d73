#!/usr/bin/env bash
# An attempt is durable when `answer` returns: the process is killed with
# SIGKILL right after grading and recording (fault hook), and the attempt is
# in the store, which still passes an integrity check.
. "$(dirname "$0")/lib.sh"
run pack import "$PACKS/e2e"
expect_rc 0 "import"
for i in 1 2 3; do
  WARPBENCH_FAULT=kill-after-answer "$WB" --db "$DB" answer test.e2e:speedup 2.5 >/dev/null 2>&1
  rc=$?
  [ "$rc" -eq 137 ] && ok || fail "process was not killed (exit $rc)"
done
expect_sql "select count(*) from attempts where question_id='speedup'" 3 "killed runs kept their attempts"
expect_sql "pragma integrity_check" ok "store intact"
run --json answer speedup 2.5
expect_rc 0 "store usable after kills"
expect_jq .attempts 4 "attempt count continues"
finish
