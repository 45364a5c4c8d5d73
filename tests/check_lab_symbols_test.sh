#!/usr/bin/env bash
# The labs library exports only symbols with their folder's prefix
# (scripts/check-lab-symbols.sh over `nm`), and the check names each planted
# offender: a symbol without a prefix, one with another folder's, a core
# symbol that looks like a lab's, and a source outside any known folder.
set -u
src=${WB_SOURCE_DIR:?}
archive=${WB_LABS_ARCHIVE:?}
cc=${WB_CC:-cc}
check="$src/scripts/check-lab-symbols.sh"
T=$(mktemp -d "${WB_TEST_TMP:-/tmp}/labsyms.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0

mkdir -p "$T"/labs/{core,transport,kmeans,newlab}
printf 'int km_planted(void) { return 1; }\nint lab_km_fine(void) { return 2; }\n'`
      `'static int helper(void) { return 3; }\nint lab_km_uses(void) { return helper(); }\n' \
  >"$T/labs/kmeans/lab_kmeans_plant.c"
printf 'int lab_core_fine(void) { return 1; }\nint lab_km_misplaced(void) { return 2; }\n'`
      `'int helper_global = 4;\n' >"$T/labs/core/lab_core_plant.c"
printf 'int lab_net_ok(void) { return 1; }\nint lab_mpi_ok(void) { return 2; }\n'`
      `'int ps_old(void) { return 3; }\nint lab_ps_sideways(void) { return 4; }\n' \
  >"$T/labs/transport/lab_net_plant.c"
printf 'int lab_newlab_def = 1;\n' >"$T/labs/newlab/lab_newlab.c"
objs=()
for f in kmeans/lab_kmeans_plant core/lab_core_plant transport/lab_net_plant newlab/lab_newlab; do
  "$cc" -c "$T/labs/$f.c" -o "$T/$(basename "$f").c.o" || { echo "FAIL: cannot compile $f.c"; exit 1; }
  objs+=("$T/$(basename "$f").c.o")
done
ar rc "$T/libplant.a" "${objs[@]}"

out=$("$check" "$T/libplant.a" "$T/labs"); rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: planted offenders: exit $rc"; echo "$out"; fail=1; }
for want in "labs/kmeans/lab_kmeans_plant.c: km_planted: exported without labs/kmeans/'s prefix (lab_km_)" \
            "labs/core/lab_core_plant.c: lab_km_misplaced: core's symbols start lab_, but not lab_km_" \
            "labs/core/lab_core_plant.c: helper_global: exported without labs/core/'s prefix (lab_)" \
            "labs/transport/lab_net_plant.c: ps_old: exported without labs/transport/'s prefix (lab_net_ or lab_mpi_)" \
            "labs/transport/lab_net_plant.c: lab_ps_sideways: exported without labs/transport/'s prefix" \
            "labs/newlab/lab_newlab.c: lab_newlab_def: labs/newlab/ has no prefix"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: not reported: $want"; echo "$out"; fail=1; }
done
[ "$(grep -c . <<<"$out")" -eq 6 ] || { echo "FAIL: expected exactly 6 reports:"; echo "$out"; fail=1; }
for fine in lab_km_fine lab_core_fine lab_net_ok lab_mpi_ok lab_km_uses helper; do
  grep -q ": $fine:" <<<"$out" && { echo "FAIL: $fine reported:"; echo "$out"; fail=1; }
done

out=$("$check" "$archive" "$src/labs") ||
  { echo "FAIL: the labs library exports symbols without their folder's prefix:"; echo "$out"; fail=1; }
echo "$out" | tail -1
[ "$fail" -eq 0 ] && echo "lab symbols check: ok"
exit "$fail"
