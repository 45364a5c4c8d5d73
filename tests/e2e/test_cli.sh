#!/usr/bin/env bash
# The command line itself: help, version, usage errors and their exit codes,
# the store location rules, and a store that is not a database.
. "$(dirname "$0")/lib.sh"

run --help
expect_rc 0 "--help"
expect_out "exit codes" "help documents exit codes"
run --version
expect_rc 0 "--version"
expect_out "warpbench" "version"
run frobnicate
expect_rc 2 "unknown command"
run answer
expect_rc 2 "answer without arguments"
run answer speedup 1 --variant 0
expect_rc 2 "variant 0"
run lessons --bogus
expect_rc 2 "unknown option"
run show nosuchlesson
expect_rc 5 "unknown lesson"

# WARPBENCH_DB and XDG_DATA_HOME choose the store when --db is absent.
WARPBENCH_DB="$T/env.db" "$WB" lessons >/dev/null 2>&1
[ -f "$T/env.db" ] && ok || fail "WARPBENCH_DB honoured"
env -u WARPBENCH_DB XDG_DATA_HOME="$T/xdg" "$WB" lessons >/dev/null 2>&1
[ -f "$T/xdg/warpbench/warpbench.db" ] && ok || fail "XDG_DATA_HOME honoured"
env -u WARPBENCH_DB -u XDG_DATA_HOME HOME="$T/home" "$WB" lessons >/dev/null 2>&1
[ -f "$T/home/.local/share/warpbench/warpbench.db" ] && ok || fail "HOME fallback"

# A file that is not a store: clear error, exit 6, file untouched.
echo "not a database" >"$T/junk.db"
before=$(sha256sum "$T/junk.db")
OUT=$("$WB" --db "$T/junk.db" lessons 2>&1); RC=$?
expect_rc 6 "junk store"
grep -q "junk.db" <<<"$OUT" && ok || fail "error names the file: $OUT"
[ "$(sha256sum "$T/junk.db")" = "$before" ] && ok || fail "junk file modified"

run --json show amdahl
expect_rc 0 "show the built-in lesson"
expect_jq '.pages | length > 0' true "lesson has pages"
finish
