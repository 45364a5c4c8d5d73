#!/usr/bin/env bash
# The format check refuses a file laid out otherwise (and a line over 100
# columns), and the repository passes it.
set -u
src=${WB_SOURCE_DIR:?}
check="$src/scripts/check-format.sh"
if ! command -v clang-format >/dev/null 2>&1; then
  echo "FAIL: clang-format is not installed (scripts/setup.sh installs it)"
  exit 1
fi
T=$(mktemp -d "${WB_TEST_TMP:-/tmp}/format.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
cp "$src/.clang-format" "$T/"
printf 'int f(void)\n{\n    return 1;\n}\n' >"$T/good.c"
printf 'int g(void) { return 2; }\n' >"$T/bad.c"
printf '/* %0120d */\n' 0 >"$T/long.h"
(cd "$T" && git init -q && git add . )
out=$("$check" "$T"); rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: planted problems: exit $rc"; fail=1; }
grep -q "^bad.c: not as .clang-format lays it out" <<<"$out" || { echo "FAIL: bad.c not reported: $out"; fail=1; }
grep -q "^long.h:1: longer than 100 columns" <<<"$out" || { echo "FAIL: long line not reported: $out"; fail=1; }
grep -q "good.c" <<<"$out" && { echo "FAIL: good.c reported: $out"; fail=1; }
out=$("$check" "$src") || { echo "FAIL: the repository is not formatted:"; echo "$out"; fail=1; }
[ "$fail" -eq 0 ] && echo "format check: ok"
exit "$fail"
