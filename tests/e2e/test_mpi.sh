#!/usr/bin/env bash
# The distributed labs over Open MPI (transport=mpi), through the real
# binary and Open MPI's own mpirun on this machine (--oversubscribe: more
# ranks than cores):
#  - mpirun -np 4 paramserver sync: the same weights fingerprint as the local
#    transport (and the single-process sequence of updates it matches);
#    allreduce mode too; kill_worker as an application-level fault;
#  - mpirun -np 4 kmeans: the same centres and labels fingerprints as p = 1,
#    with injected crashes too;
#  - hosts=: Warpbench runs mpirun itself, records the run with every host
#    and the interconnect; cancelling it leaves no process; a killed rank
#    fails the run with the reason;
#  - mpirun directly: rank 0 records; a killed rank there fails the run too;
#  - the allreduce lab over MPI: ring, tree and MPI_Allreduce exact sums.
# Skipped (77) when this build has no Open MPI or mpirun is missing.
. "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: mpirun is not installed (Open MPI: openmpi-bin)"
  exit 77
fi
run lab run paramserver --set hosts=a:x # refused either way; the reason says which
if grep -q "this build has no Open MPI" <<<"$ERR"; then
  echo "SKIP: this build has no Open MPI (configured without it: -DWB_MPI=OFF or not found)"
  exit 77
fi
# running as root (CI containers): Open MPI refuses unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# when a rank dies, mpirun gives the others this long after SIGTERM before
# SIGKILL (default 1 s): rank 0 records the failed run meanwhile
export OMPI_MCA_odls_base_sigkill_timeout=10
# Open MPI's own allocations at exit are not ours (AddressSanitizer builds)
export LSAN_OPTIONS="suppressions=$WB_SOURCE_DIR/tests/lsan-mpi.supp:print_suppressions=0"
# (whole stacks, and Open MPI's components kept loaded, so that those
# suppressions find the library a leak is in)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
# No leak check in the ranks: LeakSanitizer's stop-the-world tracer crashes
# now and then in an Open MPI process at exit ("Tracer caught signal 11",
# then abort: a fresh-clone CI run, 2026-11-28). Memory errors are still
# caught here; the labs' own code is leak-checked in their local-transport
# tests (test_lab_paramserver, test_lab_allreduce, test_lab_kmeans).
export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
export OMPI_MCA_mca_base_component_disable_dlclose=1
MPIRUN=(mpirun --oversubscribe --bind-to none)
# a marker in every command line, to find what is left of a run
MARK=$((4000000 + RANDOM))

mrun() { # mrun NP ARGS...: warpbench ARGS under mpirun; sets OUT (last line), ERR, RC
  local np=$1; shift
  OUT=$("${MPIRUN[@]}" -np "$np" "$WB" --db "$DB" "$@" 2>"$T/stderr"); RC=$?
  ERR=$(cat "$T/stderr")
  OUT=$(tail -n 1 <<<"$OUT")
}
last() { OUT=$(tail -n 1 <<<"$OUT"); }

PS=(--set params=2000 --set sparsity=0.95 --set batch=8 --set link=off --set compute_ms=0
  --set steps=12)

# ---- the parameter server: same bits as the local transport ------------------
run --json lab run paramserver "${PS[@]}" --set mode=sync --set workers=2
expect_rc 0 "local sync run"
last
local_fnv=$(jqv .figures.weights_fnv)
mrun 4 --json lab run paramserver "${PS[@]}" --set mode=sync --set transport=mpi
expect_rc 0 "mpirun -np 4 paramserver sync"
expect_jq .status done "done under MPI"
expect_jq .figures.workers 2 "4 ranks: the master, a shard and 2 workers"
expect_jq .figures.weights_fnv "$local_fnv" "MPI sync: the local transport's weights, bit for bit"
RUN=$(jqv .run)
expect_sql "SELECT json_extract(machine_json, '\$.n_hosts') > 0, json_extract(machine_json, '\$.interconnect') LIKE 'Open MPI%' FROM lab_runs WHERE id = $RUN" \
  "1|1" "the machine record lists the hosts and the interconnect"
expect_sql "SELECT json_extract(machine_json, '\$.hosts') LIKE '%ranks 0-3%' FROM lab_runs WHERE id = $RUN" \
  1 "every rank on its host"
expect_sql "SELECT json_extract(params_json, '\$.workers') FROM lab_runs WHERE id = $RUN" 2 \
  "the stored parameters say how many workers the ranks gave"

run --json lab run paramserver "${PS[@]}" --set mode=allreduce --set workers=3
last
ar_fnv=$(jqv .figures.weights_fnv)
mrun 4 --json lab run paramserver "${PS[@]}" --set mode=allreduce --set transport=mpi
expect_rc 0 "mpirun -np 4 paramserver allreduce"
expect_jq .figures.weights_fnv "$ar_fnv" "MPI ring all-reduce: the local weights, bit for bit"

mrun 4 --json lab run paramserver "${PS[@]}" --set mode=sync --set transport=mpi \
  --set kill_worker=2@4
expect_rc 0 "an application-level worker death under MPI"
expect_jq .figures.workers_lost 1 "one worker lost"
expect_err "closed its connections (injected" "the fault is named as application-level"

mrun 4 lab run paramserver "${PS[@]}" --set transport=mpi --set workers=5
expect_rc 2 "workers that do not fit the ranks are refused"
expect_err "but the job has 4" "says how many ranks there are"

# ---- k-means: the same centres for any number of ranks -----------------------
KM=(--set n=3000 --set d=3 --set k=4 --set tasks=6 --set scale_iters=0 --set max_iter=30)
run --json lab run kmeans "${KM[@]}" --set workers=1
last
km_fnv=$(jqv .figures.centres_fnv)
km_lfnv=$(jqv .figures.labels_fnv)
mrun 4 --json lab run kmeans "${KM[@]}" --set transport=mpi
expect_rc 0 "mpirun -np 4 kmeans"
expect_jq .figures.workers 3 "3 worker ranks"
expect_jq .figures.centres_fnv "$km_fnv" "MPI k-means: the centres of p = 1, bit for bit"
expect_jq .figures.labels_fnv "$km_lfnv" "and the same labels"
mrun 3 --json lab run kmeans "${KM[@]}" --set transport=mpi --set combiner=off --set crash=0.2
expect_rc 0 "k-means over MPI with crashes"
expect_jq '.figures.crashes > 0' true "crashes happened"
expect_jq .figures.centres_fnv "$km_fnv" "crashes change nothing"

# ---- the allreduce lab: ring, tree and MPI_Allreduce ---------------------------
mrun 4 --json lab run allreduce --set transport=mpi --set min_bytes=4096 --set max_bytes=65536 \
  --set time_ms=5
expect_rc 0 "allreduce over MPI (exact sums checked by every worker)"
expect_jq '.figures.ring_vs_mpi_4k > 0 and .figures.p2p_vs_mpi_4k > 0' true "MPI's anchors measured"
expect_jq .figures.workers 3 "3 workers"

# ---- hosts=: Warpbench runs mpirun -------------------------------------------
run --json lab run paramserver "${PS[@]}" --set mode=sync --set hosts=localhost:4
expect_rc 0 "hosts=localhost:4"
last
expect_jq .figures.weights_fnv "$local_fnv" "relayed run: the same weights"
RUN=$(jqv .run)
expect_sql "SELECT status, json_extract(machine_json, '\$.interconnect') LIKE 'Open MPI%' FROM lab_runs WHERE id = $RUN" \
  "done|1" "recorded by the front end with the interconnect"
expect_sql "SELECT COUNT(*) FROM lab_samples WHERE run_id = $RUN AND series = 'loss'" 12 \
  "rank 0's samples relayed into the store"
run lab run paramserver --set hosts=a:2,b --set workers=4
expect_rc 2 "a host list whose slots do not fit"
expect_err "job has 3" "says how many ranks the hosts give"
run lab run paramserver --set hosts=a:x
expect_rc 2 "a bad host list"
expect_err "NAME:SLOTS" "shows the form"

# ranks still running: every process whose command line carries the marker
left() { pgrep -f -- "seed=$1" | tr '\n' ' '; }
# started FILE: waits (20 s at most) until the run logging to FILE reports
# its first steps
started() {
  for _ in $(seq 1 400); do grep -q "checkpoints: every" "$1" 2>/dev/null && return 0; sleep 0.05; done
  return 1
}

# cancelling a hosts= run: every rank ends
"$WB" --db "$DB" lab run paramserver --set hosts=localhost:4 --set params=2000 --set link=off \
  --set compute_ms=50 --set steps=100000 --set seed=$MARK >"$T/c.out" 2>"$T/c.err" &
pid=$!
started "$T/c.err"
[ "$(wc -w <<<"$(left $MARK)")" -ge 5 ] && ok || fail "the relayed run did not start: $(cat "$T/c.err")"
kill -INT $pid
wait $pid
RC=$?
[ "$RC" -eq 130 ] && ok || fail "a cancelled hosts= run exits 130, got $RC ($(cat "$T/c.err"))"
wait_gone 20 left $MARK && ok || fail "processes left 20 s after cancelling: $(left $MARK)"
expect_sql "SELECT status FROM lab_runs WHERE params_json LIKE '%$MARK%'" cancelled "stored as cancelled"

# a killed rank: the run fails with the reason
kill_rank() { # kill_rank MARK RANK: SIGKILL the rank of the run marked MARK
  for p in $(pgrep -f -- "seed=$1"); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      kill -KILL "$p"
      return 0
    fi
  done
  return 1
}
M2=$((MARK + 1))
"$WB" --db "$DB" lab run paramserver --set hosts=localhost:4 --set params=2000 --set link=off \
  --set compute_ms=50 --set steps=100000 --set seed=$M2 >"$T/k.out" 2>"$T/k.err" &
pid=$!
started "$T/k.err"
kill_rank $M2 2 && ok || { fail "no rank 2 found to kill"; kill -INT $pid; }
wait $pid
RC=$?
[ "$RC" -eq 8 ] && ok || fail "a run whose rank was killed exits 8 (failed), got $RC"
grep -q "process rank 2 .* exited on signal 9" "$T/k.err" && ok ||
  fail "the reason names the rank and the signal: $(tail -3 "$T/k.err")"
wait_gone 20 left $M2 && ok || fail "processes left 20 s after a rank died: $(left $M2)"
expect_sql "SELECT status, error LIKE '%rank 2%signal 9%' FROM lab_runs WHERE params_json LIKE '%$M2%'" \
  "failed|1" "stored as failed, with the reason"

# the same under mpirun directly: rank 0 records the failure
M3=$((MARK + 2))
"${MPIRUN[@]}" -np 4 "$WB" --db "$DB" lab run paramserver --set transport=mpi --set params=2000 \
  --set link=off --set compute_ms=50 --set steps=100000 --set seed=$M3 >"$T/d.out" 2>"$T/d.err" &
pid=$!
started "$T/d.err"
kill_rank $M3 3 && ok || { fail "no rank 3 found to kill"; kill -TERM $pid; }
wait $pid
wait_gone 20 left $M3 && ok || fail "processes left 20 s after a rank died: $(left $M3)"
expect_sql "SELECT status, error LIKE '%Open MPI ended the job%' FROM lab_runs WHERE params_json LIKE '%$M3%'" \
  "failed|1" "rank 0 stored the run as failed, with the reason"

finish
