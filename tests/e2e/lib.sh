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

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit $?
}
