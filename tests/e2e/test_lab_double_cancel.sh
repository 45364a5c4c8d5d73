#!/usr/bin/env bash
# Two quick Ctrl-Cs during a lab: the first asks the lab to stop, the second
# quits at once (the process dies by SIGINT, exit 130, its workers with it).
# The run is then not "killed or crashed": the process left a closing note
# beside the store, and the next warpbench closes the run as cancelled, with
# the reason.
. "$(dirname "$0")/lib.sh"

run init
expect_rc 0 "init"
"$WB" --db "$DB" lab run selftest --set steps=100000 --set interval_ms=20 --set workers=2 \
  >/dev/null 2>"$T/err" &
pid=$!
wait_children "$pid" 2 "$T/err" "step"
end=$((SECONDS + 120)) # a sample recorded (a loaded machine is slow)
while [ "$SECONDS" -lt "$end" ]; do
  [ "$(sql "SELECT COUNT(*) FROM lab_samples" 2>/dev/null || echo 0)" -gt 0 ] && break
  sleep 0.1
done
kill -INT "$pid"
kill -INT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "two Ctrl-Cs end the process by SIGINT"
for k in $kids; do
  if wait_dead 20 "$k"; then ok; else fail "worker $k outlived the process by 20 s"; fi
done
run lab runs
expect_rc 0 "lab runs after the quit"
expect_sql "SELECT status FROM lab_runs" cancelled "the run is stored as cancelled"
expect_sql "SELECT error LIKE '%cancelled%' AND error NOT LIKE '%killed or crashed%' FROM lab_runs" 1 \
  "with the reason, not 'killed or crashed'"
[ "$(find "$T" -name 'store.db-run*' | wc -l)" = 0 ] && ok || fail "the run's side file is left"
finish
