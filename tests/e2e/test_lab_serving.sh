#!/usr/bin/env bash
# The serving lab through the real binary: listed with its parameters;
# impossible parameters refused before running (exit 2, naming the
# parameter); a small JSON run with real processes: every request answered
# once, latencies non-negative, the books' Little identity, stored; the GPU
# header line when there is no GPU; Ctrl-C while requests flow (exit 130,
# stored "cancelled", no process or /dev/shm entry left); and lab-linked
# questions graded against the run. No timing is asserted.
. "$(dirname "$0")/lib.sh"

run lab list
expect_rc 0 "lab list"
expect_out "serving — Serving: batching, latency and Little's law" "serving listed with its title"
run --json lab list
expect_jq '[.labs[] | select(.name == "serving") | .params[].name] | join(",")' \
  "sweep,loads,capacity,rate,workers,max_batch,max_wait_ms,d,hidden,duration_s,seed,sample_ms,check_every,device" \
  "every parameter listed"

# ---- refused before running -------------------------------------------------
expect_refused "a load above 1.5" "parameter 'loads'" lab run serving --set loads=0.5,2
expect_refused "sweep=none without a rate" "parameter 'rate'" lab run serving --set sweep=none
expect_refused "too many workers" "workers" lab run serving --set workers=17
expect_refused "a model too large" "parameters 'd' (4096) and 'hidden' (65536)" \
  lab run serving --set d=4096 --set hidden=65536 --set workers=16
[ "$(sql 'SELECT COUNT(*) FROM lab_runs' 2>/dev/null || echo 0)" = 0 ] && ok ||
  fail "refused runs are not recorded"

# ---- a small run ----------------------------------------------------------------
SMALL=(--set d=16 --set hidden=64 --set max_batch=8 --set duration_s=0.3 --set device=cpu
  --set capacity=1000 --set loads=0.2,0.6 --set rate=300)
run --json lab run serving "${SMALL[@]}" --set workers=2
expect_rc 0 "a serving run"
ALL=$OUT
OUT=$(tail -n 1 <<<"$ALL")
expect_jq .status done "done"
RUN=$(jqv .run)
expect_jq '.figures.requests == .figures.answered and .figures.requests > 0' true "every request answered"
expect_jq '.figures.duplicates' 0 "none twice"
expect_jq '.figures.latency_min_ms >= 0' true "latencies non-negative"
expect_jq '.figures.little_identity_max < 1e-9' true "the books' L = lambda W identity"
expect_jq '.figures.rate_load60' 600 "load 60% of capacity 1000"
expect_jq '.figures.p50_ms_load20 <= .figures.p99_ms_load20' true "p50 <= p99"
expect_jq '.figures.batch_mb8 <= 8 and .figures.batch_mb1 == 1' true "batches within max batch"
OUT=$ALL
n_p99=$(jq -r 'select(.type == "sample" and .series == "p99_ms") | .step' <<<"$OUT" | wc -l)
[ "$n_p99" = 2 ] && ok || fail "one p99 point per load ($n_p99)"
expect_sql "SELECT status FROM lab_runs WHERE id = $RUN" done "stored"
expect_sql "SELECT COUNT(*) FROM lab_samples WHERE run_id = $RUN AND series = 'mb_p99_ms'" 4 \
  "the max-batch sweep: 1, 2, 4, 8"

# ---- device=auto without a GPU: the first line says why -------------------------
if "$WB" --db "$DB" lab run serving --set d=16 --set hidden=64 --set sweep=none --set rate=100 \
  --set duration_s=0.1 >"$T/s.out" 2>"$T/s.err"; then ok; else fail "auto runs: $(cat "$T/s.err")"; fi
if grep -q "no GPU" "$T/s.err"; then
  head -n 1 "$T/s.err" | grep -q "no GPU: .*the model runs on 1 CPU worker process" && ok ||
    fail "the first line says there is no GPU: $(head -n 1 "$T/s.err")"
  grep -q "no_gpu  *no GPU" "$T/s.out" && ok || fail "the summary says why"
fi

# ---- Ctrl-C while requests flow ---------------------------------------------------
"$WB" --db "$DB" lab run serving --set d=16 --set hidden=64 --set sweep=none --set rate=200 \
  --set duration_s=60 --set workers=2 --set device=cpu >"$T/cancel.out" 2>"$T/cancel.err" &
pid=$!
wait_children "$pid" 3 "$T/cancel.err" "t(B) ="
grep -q "t(B) =" "$T/cancel.err" && ok || fail "calibrated, the point started: $(cat "$T/cancel.err")"
sleep 0.3 # requests flowing
shm_watch "$pid" $kids
expect_stopped "$pid" INT "$pid" 130 "$T/cancel.err" Ctrl-C
expect_shm_gone "Ctrl-C"
expect_sql "SELECT status FROM lab_runs ORDER BY id DESC LIMIT 1" cancelled "stored as cancelled"

# ---- lab-linked questions graded against the latest completed run ------------------
run --json lab run serving "${SMALL[@]}" --set sweep=rate
FIG=$(tail -n 1 <<<"$OUT")
run question lab-serving.little
expect_rc 0 "show the question"
# the question takes the load point nearest 70% that the run marked stable:
# 60% on a quiet machine, 20% when this one was too loaded to keep up at 60%
pct=$(grep -o "At load [0-9]*%" <<<"$OUT" | grep -o "[0-9]*")
[ "$pct" = 60 ] || [ "$pct" = 20 ] && ok || fail "the prompt names a load of the run: '$pct' ($OUT)"
rate=$(jq -r ".figures.rate_load$pct" <<<"$FIG")
expect_out "λ = $rate req/s" "the prompt shows the run's rate at that load"
[ "$(jq -r ".figures.stable_load$pct" <<<"$FIG")" = 1 ] && ok || fail "a load the run marked stable"
[ "$pct" = 60 ] || [ "$(jq -r ".figures.stable_load60" <<<"$FIG")" != 1 ] && ok ||
  fail "60% was stable, yet the question took $pct%"
w=$(grep -o "W = [0-9.e+-]* ms" <<<"$OUT" | awk '{print $3}')
run --json answer lab-serving.little "$rate*$w/1000"
expect_jq .correct true "L = lambda W for this run"
run --json answer lab-serving.little "$rate*$w"
expect_jq .correct false "forgetting milliseconds is wrong"
run question lab-serving.workers-for-qps
expect_rc 0 "show the capacity question"

finish
