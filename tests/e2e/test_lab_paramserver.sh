#!/usr/bin/env bash
# The paramserver lab through the real binary: a small sync run with the
# course's figures in the summary and the store, parameter errors before
# anything runs (exit 2; a link on which one step would take days among
# them), a killed shard (exit 8, its signal and the way to recover named),
# recovery from a checkpoint, Ctrl-C during a run on a slow emulated link
# (exit 130, stored "cancelled", no shard or worker left), and the master
# killed with SIGKILL (its shards and workers die with it).
. "$(dirname "$0")/lib.sh"

SMALL=(--set link=off --set compute_ms=0 --set params=2000 --set sparsity=0.95 --set batch=8)

# ---- a run ------------------------------------------------------------------
run --json lab run paramserver "${SMALL[@]}" --set steps=15 --set workers=3 --set servers=2
expect_rc 0 "a small sync run"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .status done "done"
expect_jq .figures.mode sync "mode figure"
expect_jq '.figures.comm_fraction >= 0 and .figures.comm_fraction < 1' true "comm_fraction in [0, 1)"
expect_jq '(.figures.step_ms - .figures.compute_ms_mean - .figures.comm_ms) | fabs < 1e-6' true \
  "comm_ms = step_ms - compute_ms_mean"
expect_jq '.figures.final_loss < .figures.initial_loss' true "the loss went down"
expect_jq '.figures.steps_done' 15 "all steps done"
expect_jq '.figures.predicted_comm_fraction' null "no prediction with link=off"
expect_jq '.figures.weights_fnv | test("^[0-9a-f]{16}$")' true "weights hash"
RUN=$(jqv .run)
expect_sql "SELECT json_extract(summary_json, '\$.comm_fraction') IS NOT NULL, json_extract(summary_json, '\$.mode') FROM lab_runs WHERE id = $RUN" \
  "1|sync" "summary stored for the graders"
expect_sql "SELECT COUNT(*) FROM lab_samples WHERE run_id = $RUN AND series = 'loss'" 15 "a loss sample per step"
run lab runs paramserver
expect_out "comm_fraction" "comm_fraction is the run's key figure"

# the same data and order give the same weights
run --json lab run paramserver "${SMALL[@]}" --set steps=15 --set workers=3 --set servers=2
OUT=$(tail -n 1 <<<"$OUT")
expect_jq '.figures.weights_fnv' "$(sql "SELECT json_extract(summary_json, '\$.weights_fnv') FROM lab_runs WHERE id = $RUN")" \
  "sync is reproducible bit for bit"

# a modelled link: the course's prediction is reported next to the measurement
run --json lab run paramserver --set params=20000 --set link=100Mbps --set compute_ms=5 --set steps=6 --set workers=2
expect_rc 0 "a run on a 100 Mbps link"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq '.figures.predicted_comm_ms' 12.8 "2 x 4 B x 20000 / 12.5 MB/s = 12.8 ms"
expect_jq '.figures.predicted_comm_fraction | (. - 12.8 / 17.8) | fabs < 1e-9' true "12.8 / (12.8 + 5)"

# ---- parameters refused before running ------------------------------------
n_runs=$(sql 'SELECT COUNT(*) FROM lab_runs')
run lab run paramserver --set mode=allreduce --set servers=2
expect_rc 2 "allreduce with servers"
expect_err "'servers' does not apply" "explains why"
run lab run paramserver --set workers=3 --set straggler=4:2
expect_rc 2 "straggler beyond the workers"
expect_err "parameter 'straggler' names worker 4, but workers = 3" "names the straggler"
run lab run paramserver --set link=1gigabit
expect_rc 2 "unreadable link"
expect_err "parameter 'link'" "names the link"
run lab run paramserver --set compress=zip
expect_rc 2 "unknown compression"
expect_err "topk:F" "lists the compressions"
run lab run paramserver --set mode=gossip
expect_rc 2 "unknown mode"
expect_err "sync|async|ssp|allreduce" "lists the modes"
run lab run paramserver --set link=1Kbps --set params=10000000
expect_rc 2 "a link on which one step takes days"
expect_err "parameter 'link'" "names the link"
expect_err "days" "says how long a step would take"
[ "$(sql 'SELECT COUNT(*) FROM lab_runs')" = "$n_runs" ] && ok || fail "refused runs are not recorded"

# ---- a shard killed: the run stops, then recovers -------------------------
run --json lab run paramserver "${SMALL[@]}" --set steps=12 --set servers=2 --set kill_server=2@5 --set checkpoint_every=3
expect_rc 8 "a dead shard stops the run"
expect_err "server shard 2 (pid" "names the shard"
expect_err "killed by signal 9" "and its signal"
expect_err "recover=on" "and how to recover"
run --json lab run paramserver "${SMALL[@]}" --set steps=12 --set servers=2 --set kill_server=2@5 \
  --set checkpoint_every=3 --set recover=on
expect_rc 0 "recover=on restarts the shard"
expect_err "restarted it (pid" "says so"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .figures.shard_restarts 1 "one restart"
expect_jq .figures.steps_done 12 "training went on to the end"

# ---- Ctrl-C: nothing left behind -------------------------------------------
"$WB" --db "$DB" lab run paramserver --set link=10Mbps --set params=50000 --set steps=100000 \
  --set workers=3 --set servers=2 >"$T/c.out" 2>"$T/c.err" &
pid=$!
kids=""
for _ in $(seq 1 200); do
  kids=$(pgrep -P "$pid" | tr '\n' ' ')
  [ "$(wc -w <<<"$kids")" -eq 5 ] && break
  sleep 0.05
done
[ "$(wc -w <<<"$kids")" -eq 5 ] && ok || fail "two shards and three workers running (got: $kids)"
sleep 0.5 # a few steps on the wire (one pull or push takes 160 ms at 10 Mbps)
kill -INT "$pid"
wait "$pid"
RC=$?
[ "$RC" -eq 130 ] && ok || fail "Ctrl-C exits 130, got $RC ($(cat "$T/c.err"))"
for k in $kids; do
  if wait_dead 20 "$k"; then ok; else fail "process $k still alive 20 s after"; fi
done
[ -z "$(pgrep -P "$pid")" ] && ok || fail "no child of the run left"
expect_sql "SELECT status FROM lab_runs ORDER BY id DESC LIMIT 1" cancelled "stored as cancelled"
left=$(find "$T" -mindepth 1 \( -type s -o -type p \) | wc -l)
[ "$left" -eq 0 ] && ok || fail "no socket or fifo left in the work folder"

# ---- the master killed from outside (kill -9): the shards and workers die too
"$WB" --db "$DB" lab run paramserver --set link=10Mbps --set params=50000 --set steps=100000 \
  --set workers=3 --set servers=2 >"$T/k.out" 2>"$T/k.err" &
pid=$!
kids=""
for _ in $(seq 1 200); do
  kids=$(pgrep -P "$pid" | tr '\n' ' ')
  [ "$(wc -w <<<"$kids")" -eq 5 ] && break
  sleep 0.05
done
[ "$(wc -w <<<"$kids")" -eq 5 ] && ok || fail "two shards and three workers running (got: $kids)"
sleep 0.3
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for k in $kids; do
  if wait_dead 20 "$k"; then ok; else fail "process $k outlived the killed master"; kill -KILL "$k"; fi
done

finish
