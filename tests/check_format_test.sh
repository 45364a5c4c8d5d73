#!/usr/bin/env bash
# The format check refuses a file laid out otherwise (and a line over 100
# columns), in a git checkout and in a tree without .git (a tarball), where
# build folders are left out; and the repository passes it.
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
mkdir -p "$T/build-x" "$T/.hidden"
printf 'int h(void) { return 3; }\n' >"$T/build-x/generated.c" # a build folder's: not ours
printf 'int h(void) { return 3; }\n' >"$T/.hidden/x.c"
# planted: a copy without .git (a tarball), then the same as a git checkout
# (where only the files git tracks count)
for kind in tarball git; do
  if [ "$kind" = git ]; then
    command -v git >/dev/null || { echo "note: no git: the git checkout case is not run"; break; }
    (cd "$T" && git init -q && git add good.c bad.c long.h .clang-format)
  fi
  out=$("$check" "$T"); rc=$?
  [ "$rc" -eq 1 ] || { echo "FAIL ($kind): planted problems: exit $rc"; fail=1; }
  grep -q "^bad.c: not as .clang-format lays it out" <<<"$out" || { echo "FAIL ($kind): bad.c not reported: $out"; fail=1; }
  grep -q "^long.h:1: longer than 100 columns" <<<"$out" || { echo "FAIL ($kind): long line not reported: $out"; fail=1; }
  grep -q "good.c\|generated.c\|x.c" <<<"$out" && { echo "FAIL ($kind): a file that is fine or not ours reported: $out"; fail=1; }
  rm -rf "$T/.git"
done
out=$("$check" "$src") || { echo "FAIL: the repository is not formatted:"; echo "$out"; fail=1; }
[ "$fail" -eq 0 ] && echo "format check: ok"
exit "$fail"
