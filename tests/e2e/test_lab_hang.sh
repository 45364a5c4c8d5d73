#!/usr/bin/env bash
# A worker that stops answering (SIGSTOP: a hang, not a death) does not make
# a lab wait forever: the amdahl lab ends it after the shared hang timeout
# (derived from the work the worker was given, with a floor of several
# seconds) and the run fails (exit 8, stored "failed") with a reason that
# names the worker and says it was stopped; no worker is left behind.
. "$(dirname "$0")/lib.sh"

run init
expect_rc 0 "init"
# reps = 20 trials at each p keep the workers busy long enough to be caught
"$WB" --db "$DB" lab run amdahl --set P=2 --set f=0.1 --set work_ms=100 --set reps=20 \
  >"$T/out" 2>"$T/err" &
pid=$!
wait_children "$pid" 2 "$T/err" "p = 1 of 2"
set -- $kids
[ $# -ge 2 ] && ok || fail "two workers started (children: $kids; $(cat "$T/err"))"
victim=$2 # worker 2: idle at p = 1, needed from p = 2 on
kill -STOP "$victim"
# the rule ends it within seconds; a lab that waits forever is killed at 120 s
for _ in $(seq 1 1200); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  fail "the lab still waits on the stopped worker after 120 s"
  kill -CONT "$victim" 2>/dev/null
  kill -INT "$pid"
fi
wait "$pid"
RC=$?
OUT=$(cat "$T/out")
ERR=$(cat "$T/err")
expect_rc 8 "a hung worker fails the run"
expect_err "worker 2 (pid $victim)" "names the worker"
expect_err "did not answer within" "says it hung"
expect_err "stopped (SIGSTOP" "says it was stopped"
expect_sql "SELECT status, error LIKE '%worker 2%did not answer%' FROM lab_runs" "failed|1" \
  "stored as failed with the reason"
for k in $kids; do
  if wait_dead 20 "$k"; then ok; else fail "worker $k still alive"; kill -KILL "$k"; fi
done

finish
