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

# wait_children PID N ERRFILE REGEX: polls (120 s at most: a loaded machine
# under the sanitizers is slow to start workers) until the background run PID
# has at least N children and its stderr, in ERRFILE, matches REGEX; sets
# kids to the children's pids.
wait_children() {
  local end=$((SECONDS + 120))
  kids=""
  while [ "$SECONDS" -lt "$end" ]; do
    kids=$(pgrep -P "$1" | tr '\n' ' ')
    [ "$(wc -w <<<"$kids")" -ge "$2" ] && grep -q "$4" "$3" 2>/dev/null && break
    sleep 0.05
  done
}

# alive PID: the process exists and is not a zombie (a zombie is dead; it
# waits for its parent, or init, to reap it, which takes a while on a loaded
# machine).
alive() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
# wait_dead SECONDS PIDS...: polls (SECONDS at most) until none of PIDS is
# alive; 1 when some still is. An absence is checked against a deadline,
# never after a fixed sleep: on a loaded machine anything may take longer.
wait_dead() {
  local end=$((SECONDS + $1)) p left
  shift
  while :; do
    left=""
    for p in "$@"; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] && return 0
    [ "$SECONDS" -ge "$end" ] && return 1
    sleep 0.05
  done
}
# wait_gone SECONDS CMD...: polls (SECONDS at most) until CMD prints
# nothing; 1 when it still does.
wait_gone() {
  local end=$((SECONDS + $1))
  shift
  while [ -n "$("$@")" ]; do
    [ "$SECONDS" -ge "$end" ] && return 1
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
    if wait_dead 20 "$k"; then ok; else fail "worker $k still alive 20 s after $6"; fi
  done
}

# ---- the test's own shared memory ----------------------------------------------
# shm_watch PIDS...: adds to SHM_SEEN the /dev/shm files these processes map or
# hold open, and their pids to SHM_PIDS (a System V segment records its
# creator's pid): the shared memory that is the test's own. Call it while the
# run's processes live; whatever else the machine keeps in /dev/shm is not
# the test's business.
SHM_SEEN=""
SHM_PIDS=""
shm_watch() {
  local p f
  for p in "$@"; do
    SHM_PIDS="$SHM_PIDS $p"
    for f in $({
      grep -o '/dev/shm/[^ ]*' "/proc/$p/maps"
      for l in "/proc/$p/fd/"*; do readlink "$l"; done | grep '^/dev/shm/'
    } 2>/dev/null | sed 's/ (deleted)$//'); do
      case " $SHM_SEEN " in *" $f "*) ;; *) SHM_SEEN="$SHM_SEEN $f" ;; esac
    done
  done
}
# expect_shm_gone WHAT: none of the watched processes' segments is left: no
# /dev/shm file they had, no System V segment one of them created.
expect_shm_gone() {
  local left="" f sysv
  for f in $SHM_SEEN; do [ -e "$f" ] && left="$left $f"; done
  sysv=$(awk -v pids="$SHM_PIDS" 'BEGIN { n = split(pids, p, " ") }
    NR > 1 { for (i = 1; i <= n; i++) if ($5 == p[i]) print $2 }' /proc/sysvipc/shm 2>/dev/null)
  if [ -z "$left$sysv" ]; then ok; else fail "$1: left behind:$left${sysv:+ System V segments $sysv}"; fi
}

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit $?
}
