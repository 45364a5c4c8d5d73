#!/usr/bin/env bash
# The allreduce lab through the real binary, on this machine (the local
# transport, no Open MPI needed): a small sweep of message sizes over an
# emulated link, the ring and the tree both summing exactly (every worker
# checks its result), the model's figures being the course's arithmetic on
# the fitted alpha and B,
# the series on a log axis (lab list --json), and bad parameters refused
# before anything runs.
. "$(dirname "$0")/lib.sh"

# 4 workers, 4 KiB .. 64 KiB by 4, on a 1 Gbit/s link with 0.2 ms latency
run --json lab run allreduce --set workers=4 --set min_bytes=4096 --set max_bytes=65536 \
  --set link=1Gbps --set latency_ms=0.2 --set time_ms=5
expect_rc 0 "a small sweep"
SAMPLES=$OUT
OUT=$(tail -n 1 <<<"$OUT")
expect_jq .status done "done (every ring and tree sum was exact)"
expect_jq .figures.workers 4 "p = 4"
expect_jq .figures.tree_levels 2 "log2 4 = 2 levels"
expect_jq .figures.min_bytes 4096 "from 4 KiB"
expect_jq .figures.max_bytes 65536 "to 64 KiB"
# (speed is the benchmark's business: here only what is arithmetic)
expect_jq '.figures.bandwidth_gbs > 0 and .figures.alpha_us >= 0' true "alpha and B fitted"
# the crossover is the course's arithmetic on those: (p-1-L) a B / (L - (p-1)/p)
expect_jq '(.figures.model_crossover_bytes - (1 * .figures.alpha_us * 1e-6 * .figures.bandwidth_gbs * 1e9 / (2 - 0.75))) | fabs < 1' \
  true "model crossover = (p-1-L) alpha B / (L - (p-1)/p)"
# the tree model at 4 KiB: 2 log2 p (alpha + M/B)
tree4k=$(grep '"series":"model_tree_ms","step":4096,' <<<"$SAMPLES" | jq .value)
jq -n --argjson v "$tree4k" --argjson f "$(jqv .figures)" \
  '($v - 1e3 * 4 * ($f.alpha_us * 1e-6 + 4096 / ($f.bandwidth_gbs * 1e9))) | fabs < 1e-9' |
  grep -qx true && ok || fail "model_tree_ms at 4 KiB = 2 log2 p (alpha + M/B): $tree4k"
n=$(grep -c '"series":"ring_ms"' <<<"$SAMPLES")
[ "$n" -eq 3 ] && ok || fail "a ring time per size (3), got $n"
n=$(grep -c '"series":"model_tree_ms"' <<<"$SAMPLES")
[ "$n" -eq 3 ] && ok || fail "a model point per size (3), got $n"
grep -q '"series":"mpi_ms"' <<<"$SAMPLES" && fail "no MPI series without MPI" || ok

# the x axis of every chart is logarithmic
run --json lab list
expect_jq '[.labs[] | select(.name == "allreduce") | .series[] | .x_log] | all' true \
  "allreduce: log x axis declared"
expect_jq '[.labs[] | select(.name == "paramserver") | .series[] | .x_log] | any' false \
  "paramserver: linear"

# refused before running
run lab run allreduce --set min_bytes=65536 --set max_bytes=4096
expect_rc 2 "min above max"
expect_err "min_bytes = 65536 is more than max_bytes = 4096" "names both"
run lab run allreduce --set workers=1
expect_rc 2 "one worker"
expect_err "workers" "names the parameter"
run lab run allreduce --set link=fast
expect_rc 2 "a bad link"
expect_err "parameter 'link'" "names the link"
finish
