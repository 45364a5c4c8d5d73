#!/usr/bin/env bash
# Labs through the real binary: `lab list`, `lab run selftest` with its JSON
# line stream, parameter errors (exit 2), a killed worker (exit 8, its signal
# named), Ctrl-C while three workers run (exit 130, stored "cancelled", no
# process or /dev/shm entry left), SIGHUP to the process group (exit 129,
# stored "cancelled"), `lab runs` and `lab show`, the run and its
# samples in the store (read with sqlite3), and a lab-linked question graded
# against the student's own run — and telling them which lab to run before.
. "$(dirname "$0")/lib.sh"

run lab list
expect_rc 0 "lab list"
expect_out "selftest — Framework self-test" "selftest listed with its title"
expect_out "1 to 1000000" "parameter ranges listed"
run --json lab list
expect_jq '[.labs[].name] | index("selftest") != null' true "lab list --json"
expect_jq '.labs[] | select(.name == "selftest") | .params[0].name' steps "params in --json"

# ---- a lab-linked question before any run ----------------------------------
run pack import "$PACKS/labfw"
expect_rc 0 "import the lab-linked test pack"
run question test.labfw:worker_total
expect_rc 0 "show a lab question without a run"
expect_out "run the lab 'selftest' first (warpbench lab run selftest)" "says which lab to run"
run --json answer test.labfw:worker_total 30
expect_rc 9 "no run: its own exit code (not an unreadable answer)"
expect_jq .recorded false "no run: nothing recorded"
expect_jq '.needs_lab | test("warpbench lab run selftest")' true "answering names the lab too"
expect_err "is graded against your own run of the lab 'selftest', and you have none yet" \
  "and says why in words"
expect_sql "SELECT count(*) FROM attempts WHERE question_id = 'worker_total'" 0 "no attempt stored"

# ---- parameter errors -------------------------------------------------------
expect_refused "out of range" "parameter 'steps' must be an integer from 1 to 1000000, not 0" \
  lab run selftest --set steps=0
expect_refused "bad enum" "sine|square|triangle" lab run selftest --set wave=saw
expect_refused "unknown parameter" "unknown parameter 'stepz'" lab run selftest --set stepz=3
expect_refused "bad number" "'amplitude'" lab run selftest --set amplitude=lots
run lab run selftest --set crash_worker=2
expect_rc 2 "cross-parameter check"
run lab run nosuchlab
expect_rc 5 "unknown lab"
expect_err "selftest" "unknown lab lists the labs there are"
run lab run selftest --set
expect_rc 2 "--set without a value"
[ "$(sql 'SELECT COUNT(*) FROM lab_runs')" = 0 ] && ok || fail "refused runs are not recorded"

# ---- a run, as JSON lines ---------------------------------------------------
run --json lab run selftest --set steps=4 --set workers=2 --set interval_ms=0
expect_rc 0 "selftest runs"
lines=$(wc -l <<<"$OUT")
[ "$lines" -eq 13 ] && ok || fail "4 steps x 3 series + 1 summary lines, got $lines: $OUT"
first=$(head -n 1 <<<"$OUT")
OUT_ALL=$OUT
OUT=$first
expect_jq .type sample "first line is a sample"
expect_jq .series wave "first sample is the wave"
expect_jq .step 1 "first step"
expect_jq '.t >= 0' true "time since the start"
OUT=$(jq -r 'select(.type == "sample") | "\(.series):\(.step)"' <<<"$OUT_ALL" | tr '\n' ' ')
[ "$OUT" = "wave:1 ramp:1 workers:1 wave:2 ramp:2 workers:2 wave:3 ramp:3 workers:3 wave:4 ramp:4 workers:4 " ] &&
  ok || fail "sample order: $OUT"
OUT=$(tail -n 1 <<<"$OUT_ALL")
expect_jq .type summary "last line is the summary"
expect_jq .status done "status done"
expect_jq .samples 12 "sample count"
expect_jq .figures.steps 4 "steps figure"
expect_jq .figures.worker_total 30 "worker total: (1+2) * (1+2+3+4)"
expect_jq .figures.ramp_final 1 "ramp ends at 1"
expect_jq .params.workers 2 "params echoed"
expect_jq .error null "no error"
RUN1=$(jqv .run)
expect_sql "SELECT lab, status, error IS NULL, ended_at IS NOT NULL FROM lab_runs WHERE id = $RUN1" \
  "selftest|done|1|1" "run row"
expect_sql "SELECT COUNT(*) FROM lab_samples WHERE run_id = $RUN1" 12 "samples stored"
expect_sql "SELECT group_concat(series || ':' || step, ' ') FROM (SELECT series, step FROM lab_samples WHERE run_id = $RUN1 ORDER BY id)" \
  "wave:1 ramp:1 workers:1 wave:2 ramp:2 workers:2 wave:3 ramp:3 workers:3 wave:4 ramp:4 workers:4" \
  "stored in the order emitted"
expect_sql "SELECT value FROM lab_samples WHERE run_id = $RUN1 AND series = 'workers' AND step = 4" 12.0 \
  "a stored value"
expect_sql "SELECT json_extract(params_json, '\$.workers'), json_extract(summary_json, '\$.worker_total'), json_extract(machine_json, '\$.cores_online') > 0 FROM lab_runs WHERE id = $RUN1" \
  "2|30|1" "params, summary and machine stored as JSON"

# ---- the lab-linked question now uses the run -------------------------------
run question test.labfw:worker_total
expect_out "Your run had 2 workers and completed 4 steps" "prompt shows the student's numbers"
run --json answer test.labfw:worker_total 30
expect_rc 0 "graded against the run"
expect_jq .correct true "30 is right for this run"
run --json answer test.labfw:worker_total 18
expect_rc 1 "another run's answer is wrong"
run lab run selftest --set steps=3 --set workers=2 --set interval_ms=0
expect_rc 0 "a second run (human output)"
expect_out "selftest: done" "summary table"
expect_out "worker_total" "figures listed"
run --json answer test.labfw:worker_total 18
expect_rc 0 "graded against the latest run"
expect_jq .correct true "18 is right for the latest run"
run --json answer test.labfw:samples 9
expect_jq .correct true "second lab question: samples of the latest run"
# Re-grading uses the run each answer was given from, not the latest one:
# graded against the latest run, "30" (right for the first run) would turn
# wrong and "18" (wrong then) right.
run --json pack regrade test.labfw --dry-run
expect_rc 0 "re-grade the lab-linked answers"
expect_jq .checked 4 "every answer re-graded (the one tried before any run was not recorded)"
expect_jq .changed 0 "each against its own run: no grade changes"
expect_sql "SELECT count(*) FROM attempts WHERE regrade_of IS NOT NULL" "0" "a dry run writes nothing"

# ---- a worker killed by a signal --------------------------------------------
run --json lab run selftest --set steps=10 --set workers=3 --set crash_worker=2 --set interval_ms=0
expect_rc 8 "a failed lab exits 8"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .status failed "status failed"
expect_jq '.error | test("^worker 2 \\(pid [0-9]+\\) was killed by signal 9")' true "the signal is named"
expect_err "was killed by signal 9" "and said on stderr"
RUNF=$(jqv .run)
expect_sql "SELECT status, error LIKE 'worker 2 (pid %) was killed by signal 9%' FROM lab_runs WHERE id = $RUNF" \
  "failed|1" "stored as failed with the reason"
run --json answer test.labfw:worker_total 18
expect_jq .correct true "a failed run does not replace the latest completed one"

# ---- Ctrl-C while three workers run -----------------------------------------
# wait_workers PID ERRFILE: waits until run PID has its three workers and has
# begun stepping; sets kids to their pids.
wait_workers() {
  wait_children "$1" 3 "$2" "step [0-9]* of 1000"
  [ "$(wc -w <<<"$kids")" -eq 3 ] && ok || fail "three workers running (got: $kids)"
}
"$WB" --db "$DB" lab run selftest --set workers=3 --set steps=1000 >"$T/cancel.out" 2>"$T/cancel.err" &
pid=$!
wait_workers "$pid" "$T/cancel.err"
shm_watch "$pid" $kids
expect_stopped "$pid" INT "$pid" 130 "$T/cancel.err" Ctrl-C
[ -z "$(pgrep -P "$pid")" ] && ok || fail "no child of the run left"
expect_shm_gone "Ctrl-C"
grep -q "cancelled" "$T/cancel.out" && ok || fail "summary says cancelled: $(cat "$T/cancel.out")"
expect_sql "SELECT status, error LIKE 'cancelled%' FROM lab_runs ORDER BY id DESC LIMIT 1" "cancelled|1" \
  "stored as cancelled"
expect_sql "SELECT COUNT(*) > 0 FROM lab_samples WHERE run_id = (SELECT MAX(id) FROM lab_runs)" 1 \
  "its samples so far are kept"
expect_sql "SELECT COUNT(*) FROM lab_runs WHERE status = 'running'" 0 "no run left running"
left=$(find "$T" -mindepth 1 \( -type s -o -type p \) | wc -l)
[ "$left" -eq 0 ] && ok || fail "no socket or fifo left in the work folder"

# ---- the terminal goes away: SIGHUP to the whole process group --------------
# (job control puts the run in a process group of its own, as a shell does)
set -m
"$WB" --db "$DB" lab run selftest --set workers=3 --set steps=1000 >"$T/hup.out" 2>"$T/hup.err" &
pid=$!
set +m
wait_workers "$pid" "$T/hup.err"
expect_stopped "$pid" HUP "-$pid" 129 "$T/hup.err" SIGHUP
expect_sql "SELECT status, error LIKE 'cancelled%' FROM lab_runs ORDER BY id DESC LIMIT 1" "cancelled|1" \
  "a hung-up run is stored as cancelled"
expect_sql "SELECT COUNT(*) FROM lab_runs WHERE status = 'running'" 0 "no run left running after SIGHUP"

# ---- lab runs / lab show ----------------------------------------------------
run lab runs
expect_rc 0 "lab runs"
expect_out "cancelled" "lists the cancelled run"
expect_out "steps = 3" "key figure of a done run"
run --json lab runs selftest
expect_jq '.runs | length' 5 "five recorded runs"
expect_jq '.runs[0].status' cancelled "newest first"
expect_jq ".runs[] | select(.run == $RUN1) | .key_figure" "steps = 4" "key figure in --json"
run --user bob --json lab runs
expect_jq '.runs | length' 0 "another user sees none of them"
run lab show "$RUN1"
expect_rc 0 "lab show"
expect_out "run $RUN1: selftest — done" "heading"
expect_out "cores_online" "machine shown"
grep -qE "^  worker_total +30$" <<<"$OUT" && ok || fail "summary shown: no 'worker_total 30' line: $OUT"
expect_out "workers              4 samples" "per-series counts"
run --json lab show "$RUN1" --series ramp
expect_jq .summary.worker_total 30 "show --json summary"
expect_jq '[.series[].samples] | add' 12 "show --json counts"
expect_jq '[.samples[].value] | last' 1 "--series samples"
run --user bob lab show "$RUN1"
expect_rc 5 "another user's run is not shown"
run lab show 99999
expect_rc 5 "unknown run"
run lab show abc
expect_rc 2 "run id must be a number"
run lab frobnicate
expect_rc 2 "unknown lab command"

finish
