#!/usr/bin/env bash
# A lab run whose process is killed with SIGKILL cannot close its own record.
# The next process that opens the store sees the owner is gone and closes the
# run as failed with the reason; the samples recorded so far stay, workers do
# not outlive the master, and a run of a live process is never touched.
. "$(dirname "$0")/lib.sh"

"$WB" --db "$DB" lab run selftest --set steps=100000 --set interval_ms=20 \
  --set workers=2 >/dev/null 2>&1 &
master=$!
# wait (up to 180 s: a loaded machine under the sanitizers took more than
# 10) until the run is recording samples
end=$((SECONDS + 180))
while :; do
  n=$(sql "select count(*) from lab_samples" 2>/dev/null || echo 0)
  [ "${n:-0}" -gt 0 ] || [ "$SECONDS" -ge "$end" ] && break
  sleep 0.1
done
[ "${n:-0}" -gt 0 ] && ok || fail "the run never recorded a sample"

# another process opening the store while the owner lives leaves it running
run --json lab runs selftest
expect_rc 0 "lab runs while running"
expect_sql "select status from lab_runs" running "a live owner's run stays running"
[ -f "$DB-run1" ] && ok || fail "a running run has its side file (space set aside to close it)"

kids=$(pgrep -P "$master" | tr '\n' ' ')
[ "$(wc -w <<<"$kids")" -eq 2 ] && ok || fail "two workers running (got: $kids)"
kill -9 "$master"
wait "$master" 2>/dev/null
# the workers die with their parent (PR_SET_PDEATHSIG); once it is gone they
# belong to init, so they are watched by pid
if wait_dead 20 $kids; then ok; else fail "workers outlived the killed master: $kids"; fi

expect_sql "select status from lab_runs" running "nothing closed it yet"
run lab runs selftest
expect_rc 0 "lab runs after the kill"
expect_sql "select status from lab_runs" failed "the abandoned run is closed as failed"
expect_sql "select error like '%pid $master%killed or crashed%' from lab_runs" 1 "the reason names the pid"
expect_sql "select ended_at is not null from lab_runs" 1 "an end time is recorded"
expect_sql "select count(*) > 0 from lab_samples" 1 "its samples are kept"
[ ! -e "$DB-run1" ] && ok || fail "the abandoned run's side file is removed when it is closed"
expect_sql "pragma integrity_check" ok "store intact"

# a new run works and is not mistaken for an orphan
run lab run selftest --set steps=3 --set interval_ms=0
expect_rc 0 "a new run"
expect_sql "select group_concat(status, ',') from (select status from lab_runs order by id)" \
  "failed,done" "both runs as they ended"
finish
