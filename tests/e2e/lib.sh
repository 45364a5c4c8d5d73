# Shared helpers for the end-to-end tests. Source it first.
set -u
: "${WB:?WB must name the warpbench binary}"
: "${WB_SOURCE_DIR:?}"
T=$(mktemp -d "${WB_TEST_TMP:-/tmp}/e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
DB="$T/store.db"
PACKS="$WB_SOURCE_DIR/tests/data/packs"
export WARPBENCH_USER=alice
unset WARPBENCH_DB
failures=0
checks=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }

# run CMD...: runs warpbench with the test store; sets OUT, ERR, RC.
run() {
  OUT=$("$WB" --db "$DB" "$@" 2>"$T/stderr"); RC=$?
  ERR=$(cat "$T/stderr")
}

expect_rc() { if [ "$RC" -eq "$1" ]; then ok; else fail "${2:-}: exit $RC, expected $1 (stdout: $OUT; stderr: $ERR)"; fi; }
expect_out() { if grep -qF -- "$1" <<<"$OUT"; then ok; else fail "${2:-}: stdout lacks '$1': $OUT"; fi; }
expect_err() { if grep -qF -- "$1" <<<"$ERR"; then ok; else fail "${2:-}: stderr lacks '$1': $ERR"; fi; }
# expect_refused WHAT TEXT ARGS...: warpbench ARGS... is refused before running
# (exit 2) with TEXT on stderr.
expect_refused() {
  local what=$1 text=$2; shift 2
  run "$@"
  expect_rc 2 "$what"
  expect_err "$text" "$what"
}
# jqv FILTER: evaluates a jq filter on OUT.
jqv() { jq -r "$1" <<<"$OUT"; }
expect_jq() {
  local got; got=$(jqv "$1" 2>&1)
  if [ "$got" = "$2" ]; then ok; else fail "${3:-}: jq '$1' = '$got', expected '$2' (stdout: $OUT)"; fi
}
sql() { sqlite3 -batch -noheader "$DB" "$1"; }
expect_sql() {
  local got; got=$(sql "$1" 2>&1)
  if [ "$got" = "$2" ]; then ok; else fail "${3:-}: SQL '$1' = '$got', expected '$2'"; fi
}

# wait_children PID N ERRFILE REGEX: polls (10 s at most) until the background
# run PID has at least N children and its stderr, in ERRFILE, matches REGEX;
# sets kids to the children's pids.
wait_children() {
  kids=""
  for _ in $(seq 1 200); do
    kids=$(pgrep -P "$1" | tr '\n' ' ')
    [ "$(wc -w <<<"$kids")" -ge "$2" ] && grep -q "$4" "$3" 2>/dev/null && break
    sleep 0.05
  done
}

# expect_stopped PID SIGNAL TARGET STATUS ERRFILE WHAT: sends SIGNAL to TARGET
# (the run's pid, or -PGID for its process group), waits for the background
# run PID, and checks that it exited with STATUS (its stderr in ERRFILE) and
# that none of the worker pids in $kids outlived it. Sets RC.
expect_stopped() {
  kill "-$2" -- "$3"
  wait "$1"
  RC=$?
  [ "$RC" -eq "$4" ] && ok || fail "$6 exits $4, got $RC ($(cat "$5"))"
  for k in $kids; do
    if kill -0 "$k" 2>/dev/null; then fail "worker $k still alive after $6"; else ok; fi
  done
}

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit $?
}
