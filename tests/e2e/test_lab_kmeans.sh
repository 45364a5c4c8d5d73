#!/usr/bin/env bash
# The kmeans lab through the real binary: listed with its parameters;
# impossible parameters and a bad points file refused before running (exit
# 2, naming the parameter, file and line); a JSON run with its series and
# summary stored; the same centres and labels (fingerprints) for 1 and 3
# workers, with the combiner off and with injected crashes; points from a
# CSV file with the final centres saved; device=gpu without a GPU saying so
# in one line; Ctrl-C with workers busy (exit 130, stored "cancelled", no
# process or /dev/shm entry left); and a lab-linked question graded against
# the run.
. "$(dirname "$0")/lib.sh"

run lab list
expect_rc 0 "lab list"
expect_out "kmeans — MapReduce k-means over worker processes" "kmeans listed with its title"
run --json lab list
expect_jq '[.labs[] | select(.name == "kmeans") | .params[].name] | join(",")' \
  "n,d,k,seed,spread,file,format,init,init_file,workers,tasks,combiner,max_iter,tol,crash,straggler,device,scale_iters,save,overwrite,transport,hosts,hostfile" \
  "every parameter listed"

# ---- refused before running -------------------------------------------------
expect_refused "k > n" "k = 11 clusters need at least k points, but n = 10" \
  lab run kmeans --set n=10 --set k=11
expect_refused "straggler beyond the workers" "'straggler' names worker 3, but workers = 2" \
  lab run kmeans --set workers=2 --set straggler=3:4
expect_refused "crash out of range" "'crash'" lab run kmeans --set crash=0.9
run lab run kmeans --set device=gpu --set combiner=off
expect_rc 2 "gpu without combiner"
printf 'x,y\n1,2\n3,4\n5,six\n' >"$T/bad.csv"
expect_refused "a bad points file" "file '$T/bad.csv' line 4, column 2: 'six' is not a number" \
  lab run kmeans --set file="$T/bad.csv" --set k=2 --set tasks=2
head -c 100 /dev/zero >"$T/pts.f32"
expect_refused "float32 without d" "set d" lab run kmeans --set file="$T/pts.f32" --set k=2
expect_refused "float32 of the wrong size" "100 bytes, not a whole number of points of d = 3" \
  lab run kmeans --set file="$T/pts.f32" --set d=3 --set k=2
printf '\000\000\200\077\000\000\300\177' >"$T/nan.f32" # 1.0, then a NaN
expect_refused "a NaN in a float32 file, found by the check" "point 2 (byte offset 4), coordinate 1, is not a finite number" \
  lab run kmeans --set file="$T/nan.f32" --set d=1 --set k=1 --set tasks=1
expect_refused "save naming a directory" "it is a directory" \
  lab run kmeans --set n=100 --set k=2 --set save="$T"
# (the store may not even exist yet: nothing was run)
[ "$(sql 'SELECT COUNT(*) FROM lab_runs' 2>/dev/null || echo 0)" = 0 ] && ok ||
  fail "refused runs are not recorded"

# ---- a run, as JSON lines ---------------------------------------------------
SMALL=(--set n=20000 --set k=6 --set d=4 --set tasks=8 --set max_iter=20 --set seed=11)
run --json lab run kmeans "${SMALL[@]}" --set workers=2
expect_rc 0 "a kmeans run"
ALL=$OUT
OUT=$(tail -n 1 <<<"$ALL")
expect_jq .status done "done"
expect_jq '.figures.workers' 2 "two workers"
expect_jq '.figures.shuffle_records' 48 "tasks x k records with the combiner"
expect_jq '.figures.shuffle_bytes >= 8 * (48 + 6 * 5 * 8)' true "bytes of 8 combined results"
expect_jq '.figures.final_sse <= .figures.sse_first' true "SSE fell"
expect_jq '.figures.deterministic' 1 "the run's own p = 1 vs p = 2 check"
expect_jq '(.figures.map_ms + .figures.shuffle_ms + .figures.reduce_ms - .figures.iter_ms_mean) | fabs < 1e-6' \
  true "the phases add up to the mean iteration"
expect_jq '.figures.device' cpu "ran on the CPU"
FP2=$(jqv '.figures.centres_fnv + " " + .figures.labels_fnv')
ITERS=$(jqv .figures.iterations)
RUN=$(jqv .run)
OUT=$ALL
n_sse=$(jq -r 'select(.type == "sample" and .series == "sse") | .step' <<<"$OUT" | wc -l)
[ "$n_sse" = "$ITERS" ] && ok || fail "one SSE sample per iteration ($n_sse vs $ITERS)"
expect_sql "SELECT status, json_extract(summary_json, '\$.centres_fnv') FROM lab_runs WHERE id = $RUN" \
  "done|${FP2% *}" "stored with its fingerprint"
expect_sql "SELECT COUNT(*) FROM lab_samples WHERE run_id = $RUN AND series = 'speedup'" 2 \
  "speedup at p = 1 and 2 stored"
# re-runs with crash = 0 are backups of late tasks (issue 26: unexplained
# "tasks run again" spikes): a series of its own on the same chart, per iteration
expect_sql "SELECT COUNT(*) = $ITERS FROM lab_samples WHERE run_id = $RUN AND series = 'backups'" 1 \
  "backup copies of late tasks: one sample per iteration"
expect_sql "SELECT COUNT(*) FROM lab_samples b JOIN lab_samples r ON r.run_id = b.run_id
            AND r.series = 'reexec' AND r.step = b.step
            WHERE b.run_id = $RUN AND b.series = 'backups' AND b.value > r.value" 0 \
  "backups are counted within the re-executions"

# ---- the same bits whatever happens -----------------------------------------
for variant in "--set workers=1" "--set workers=3" "--set workers=2 --set combiner=off" \
  "--set workers=2 --set crash=0.25"; do
  # shellcheck disable=SC2086
  run --json lab run kmeans "${SMALL[@]}" $variant
  expect_rc 0 "run with $variant"
  OUT=$(tail -n 1 <<<"$OUT")
  expect_jq '.figures.centres_fnv + " " + .figures.labels_fnv' "$FP2" "same centres and labels with $variant"
done
expect_jq '.figures.crashes > 0' true "crashes happened"
expect_jq '.figures.reexec >= .figures.crashes' true "and their tasks ran again"
run --json lab run kmeans "${SMALL[@]}" --set workers=2 --set combiner=off
OUT=$(tail -n 1 <<<"$OUT")
expect_jq '.figures.shuffle_records' 20000 "a record per point without the combiner"

# ---- points from a file, centres saved ----------------------------------------
{
  echo "a,b"
  for i in $(seq 0 99); do echo "$((i % 10)).5,$((i / 10))"; done
} >"$T/grid.csv"
run --json lab run kmeans --set file="$T/grid.csv" --set k=1 --set tasks=4 --set workers=2 \
  --set save="$T/centres.csv"
expect_rc 0 "a CSV file"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .figures.n 100 "every point of the file"
expect_jq .figures.d 2 "d from the header"
[ "$(cat "$T/centres.csv")" = "$(printf 'x1,x2\n5,4.5')" ] && ok ||
  fail "the mean of the grid saved: $(cat "$T/centres.csv")"

# ---- device=gpu without a GPU -----------------------------------------------------
if "$WB" --db "$DB" lab run kmeans --set n=2000 --set k=3 --set d=2 --set device=gpu \
  --set max_iter=3 >"$T/gpu.out" 2>"$T/gpu.err"; then ok; else fail "device=gpu runs: $(cat "$T/gpu.err")"; fi
if grep -q "device=gpu runs the map on the CPU workers instead" "$T/gpu.err"; then
  [ "$(grep -c "no GPU" "$T/gpu.err")" = 1 ] && ok || fail "one line says there is no GPU"
  grep -q "device  *cpu" "$T/gpu.out" && ok || fail "the summary says cpu"
else
  grep -q "GPU check: all 2000 labels equal the CPU's" "$T/gpu.err" && ok || fail "GPU run checked: $(cat "$T/gpu.err")"
fi

# ---- Ctrl-C while the workers are busy --------------------------------------------
"$WB" --db "$DB" lab run kmeans --set n=300000 --set k=8 --set d=8 --set workers=2 --set tasks=2 \
  --set straggler=1:1000 --set max_iter=1000 --set tol=0 --set scale_iters=1 \
  >"$T/cancel.out" 2>"$T/cancel.err" &
pid=$!
wait_children "$pid" 2 "$T/cancel.err" "iteration 1:"
grep -q "iteration 1:" "$T/cancel.err" && ok || fail "the main run started: $(cat "$T/cancel.err")"
shm_watch "$pid" $kids
expect_stopped "$pid" INT "$pid" 130 "$T/cancel.err" Ctrl-C
expect_shm_gone "Ctrl-C"
expect_sql "SELECT status FROM lab_runs ORDER BY id DESC LIMIT 1" cancelled "stored as cancelled"

# ---- a lab-linked question graded against the latest completed run ----------------
run --json lab run kmeans "${SMALL[@]}" --set workers=2
OUT=$(tail -n 1 <<<"$OUT")
run question lab-kmeans.throughput
expect_rc 0 "show the question"
expect_out "n = 20000 points of d = 4 dimensions" "the prompt shows the run's numbers"
t_shown=$(grep -o "took [0-9.e+-]* ms" <<<"$OUT" | awk '{print $2}')
run --json answer lab-kmeans.throughput "20000*6*4/($t_shown/1000)"
expect_rc 0 "graded"
expect_jq .correct true "right for this run (n k d / t)"
run --json answer lab-kmeans.throughput "20000*6/($t_shown/1000)"
expect_jq .correct false "distances, not terms, is wrong"

finish
