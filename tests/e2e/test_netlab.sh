#!/usr/bin/env bash
# scripts/netlab.sh end to end: three network namespaces on a bridge — the
# master, the server shard and a worker, one in each — the links of the
# shard and the worker shaped by the kernel (tc tbf), the parameter-server
# lab run across them through Open MPI, and the course's model checked
# against the
# measurement: with 2 x 4 B x params over the shaped link as the
# communication time and 50 ms of compute, the measured communication
# fraction is within 15 % of the model's (the course's 64 / 114 = 56 %
# example, at 100 Mbit/s with 100,000 parameters: a tenth of the rate and of
# the model, the same 64 ms, and a tenth of the bytes for this machine's
# cores to push through the kernel; one worker, so that no barrier waits on
# another one's late wake-up on a busy machine). Then everything the script
# made is gone. Skipped (77), with the reason, when not root, when a tool is
# missing, when this build has no Open MPI, or when this machine does not
# allow network namespaces.
. "$(dirname "$0")/lib.sh"

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, veth, tc)"
for tool in ip tc unshare mpirun; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done
run lab run paramserver --set hosts=a:x
grep -q "this build has no Open MPI" <<<"$ERR" && skip "this build has no Open MPI"
probe="wbnlprobe$$"
if ! why=$(ip netns add "$probe" 2>&1); then
  skip "this machine does not allow network namespaces: ip netns add: $why"
fi
ip netns del "$probe"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LSAN_OPTIONS="suppressions=$WB_SOURCE_DIR/tests/lsan-mpi.supp:print_suppressions=0"
# (whole stacks, and Open MPI's components kept loaded, so that those
# suppressions find the library a leak is in)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export OMPI_MCA_mca_base_component_disable_dlclose=1
params=100000
OUT=$("$WB_SOURCE_DIR/scripts/netlab.sh" -n 3 --slots 1,1,1 --rate 100mbit --wb "$WB" -- \
  --db "$DB" --json lab run \
  paramserver --set mode=sync --set params=$params --set compute_ms=50 --set sparsity=0.999 \
  --set link=off --set steps=20 2>"$T/err")
RC=$?
ERR=$(cat "$T/err")
expect_rc 0 "the lab across three namespaces"
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .status done "done"
expect_jq .figures.workers 1 "the master, the shard and the worker in three namespaces"
# the model: 2 x 4 B x params / (100 Mbit/s = 12.5 MB/s), beside 50 ms
model=$(awk -v p=$params 'BEGIN { t = 2 * 4 * p / 12.5e6 * 1000; printf "%.6f", t / (t + 50) }')
got=$(jqv .figures.comm_fraction)
awk -v g="$got" -v m="$model" 'BEGIN { exit !(g >= 0.85 * m && g <= 1.15 * m) }' && ok ||
  fail "communication fraction $got is not within 15 % of the model's $model"
echo "communication fraction over the shaped link: $got (model $model)"
RUN=$(jqv .run)
expect_sql "SELECT json_extract(machine_json, '\$.n_hosts') FROM lab_runs WHERE id = $RUN" 3 \
  "the machine record lists the three hosts"
expect_sql "SELECT json_extract(machine_json, '\$.interconnect') LIKE '%tcp between hosts%' FROM lab_runs WHERE id = $RUN" \
  1 "and tcp between them"
grep -q "netlab: 3 hosts on 10.213." <<<"$ERR" && ok || fail "netlab says what it made: $ERR"

# nothing left: no namespace, bridge or veth of this run (its names start
# wbnl<id>, the id netlab printed; another run's cluster, left up with --keep
# or by a killed script, is not this one's). The kernel takes a veth whose
# namespace went away a moment later: polled, 20 s at most.
pre=$(sed -n 's/^netlab: .*(\(wbnl[0-9]*\)-1[ )].*/\1/p' <<<"$ERR" | head -n 1)
[ -n "$pre" ] && ok || fail "netlab names its namespaces: $ERR"
ours() { (ip netns list; ip -o link show) | grep -c "$pre[-bhp]"; }
for _ in $(seq 1 200); do [ "$(ours)" -eq 0 ] && break; sleep 0.1; done
left=$(ours)
[ "$left" -eq 0 ] && ok || fail "netlab left $left namespaces or links ($pre...): $(ip netns list)"

# bad arguments are refused before anything is made
OUT=$("$WB_SOURCE_DIR/scripts/netlab.sh" -n 1 -- lab run paramserver 2>&1); RC=$?
[ "$RC" -eq 2 ] && grep -q "2 to 32 hosts" <<<"$OUT" && ok || fail "-n 1 refused: $RC $OUT"
finish
