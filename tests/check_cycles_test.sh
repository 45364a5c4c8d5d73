#!/usr/bin/env bash
# The cycle check (scripts/check-cycles.sh) finds a planted cycle of calls
# and a planted cycle of includes, each named with the files and why; a
# listed (known) cycle passes while unchanged, and fails once it grows;
# grader/ may list none; and the repository's modules pass.
set -u
src=${WB_SOURCE_DIR:?}
cc=${WB_CC:-cc}
check="$src/scripts/check-cycles.sh"
T=$(mktemp -d "${WB_TEST_TMP:-/tmp}/cycles.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
mkdir -p "$T/root/m" "$T/root/scripts" "$T/obj/m/CMakeFiles/wb_m.dir"
cd "$T/root" || exit 1
printf 'int b_f(void);\nint a_f(void);\nint a_f(void) { return b_f(); }\n' >m/a.c
printf 'int a_f(void);\nint b_f(void);\nint b_f(void) { return a_f() + 1; }\n' >m/b.c
printf 'int c_f(void);\nint a_f(void);\nint c_f(void) { return a_f(); }\n' >m/c.c # calls in, no cycle
printf '#include "y.h"\n' >m/x.h
printf '#include "m/x.h"\n' >m/y.h
printf '#include "x.h"\n' >m/d.c # includes into the cycle, not part of it
objs=""
for f in a b c; do
  o="$T/obj/m/CMakeFiles/wb_m.dir/$f.c.o"
  "$cc" -c -o "$o" "m/$f.c" || { echo "FAIL: cannot compile the planted m/$f.c"; exit 1; }
  objs="$objs $o"
done
echo "m m$objs" >"$T/list"

out=$("$check" "$T/list" "$T/root"); rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: planted cycles: exit $rc"; echo "$out"; fail=1; }
calls=$(grep -F "m: cycle of 2 files: m/" <<<"$out" | grep -F "calls a_f" | grep -F "calls b_f")
[ -n "$calls" ] && grep -qF "m/a.c" <<<"$calls" && grep -qF "m/b.c" <<<"$calls" ||
  { echo "FAIL: the cycle of calls between m/a.c and m/b.c is not reported:"; echo "$out"; fail=1; }
incl=$(grep -F "m: cycle of 2 files: m/" <<<"$out" | grep -F "includes it (line 1)")
[ -n "$incl" ] && grep -qF "m/x.h" <<<"$incl" && grep -qF "m/y.h" <<<"$incl" ||
  { echo "FAIL: the cycle of includes between m/x.h and m/y.h is not reported:"; echo "$out"; fail=1; }
grep -qE "m/c\.c|m/d\.c" <<<"$(grep 'cycle of' <<<"$out")" &&
  { echo "FAIL: a file outside the cycles is reported in one:"; echo "$out"; fail=1; }

# known: the cycle of calls listed passes, the includes' still fails
echo "m: m/a.c m/b.c" >scripts/cycles-known.txt
out=$("$check" "$T/list" "$T/root"); rc=$?
[ "$rc" -eq 1 ] && grep -qF "known (scripts/cycles-known.txt), m: cycle of 2 files" <<<"$out" &&
  grep -F "m: cycle of 2 files" <<<"$out" | grep -v '^known' | grep -qF "includes it" ||
  { echo "FAIL: a known cycle beside a new one: exit $rc"; echo "$out"; fail=1; }
echo "m: m/x.h m/y.h" >>scripts/cycles-known.txt
out=$("$check" "$T/list" "$T/root") || { echo "FAIL: only known cycles, yet it failed:"; echo "$out"; fail=1; }
# the known cycle of calls grows to three files: no longer the one listed
printf 'int c_f(void);\nint a_f(void);\nint b_f(void);\nint b_f(void) { return c_f(); }\n' >m/b.c
printf 'int c_f(void);\nint a_f(void);\nint c_f(void) { return a_f(); }\n' >m/c.c
"$cc" -c -o "$T/obj/m/CMakeFiles/wb_m.dir/b.c.o" m/b.c || exit 1
out=$("$check" "$T/list" "$T/root"); rc=$?
[ "$rc" -eq 1 ] && grep -qF "m: cycle of 3 files" <<<"$out" ||
  { echo "FAIL: a known cycle that grew passed: exit $rc"; echo "$out"; fail=1; }
# grader/ may list none
mkdir -p grader
cp m/a.c grader/a.c
cp m/b.c grader/b.c
printf 'int b_f(void);\nint a_f(void);\nint b_f(void) { return a_f() + 1; }\n' >grader/b.c
mkdir -p "$T/obj/grader/CMakeFiles/wb_grader.dir"
for f in a b; do
  "$cc" -c -o "$T/obj/grader/CMakeFiles/wb_grader.dir/$f.c.o" "grader/$f.c" || exit 1
done
echo "grader grader $T/obj/grader/CMakeFiles/wb_grader.dir/a.c.o $T/obj/grader/CMakeFiles/wb_grader.dir/b.c.o" >"$T/list"
echo "grader: grader/a.c grader/b.c" >scripts/cycles-known.txt
out=$("$check" "$T/list" "$T/root"); rc=$?
[ "$rc" -eq 1 ] && grep -qF "grader: cycle of 2 files" <<<"$out" ||
  { echo "FAIL: a cycle in grader/ passed by being listed: exit $rc"; echo "$out"; fail=1; }

cd "$src" || exit 1
out=$("$check" "${WB_CYCLES_LIST:?}" "$src") || { echo "FAIL: the repository has a new cycle:"; echo "$out"; fail=1; }
[ "$fail" -eq 0 ] && echo "cycle check: ok"
exit "$fail"
