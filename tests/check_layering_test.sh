#!/usr/bin/env bash
# The layering check refuses what ARCHITECTURE.md forbids (each planted
# violation is named), and the repository passes it.
set -u
src=${WB_SOURCE_DIR:?}
check="$src/scripts/check-layering.sh"
T=$(mktemp -d "${WB_TEST_TMP:-/tmp}/layering.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
mkdir -p "$T"/{core,db,grader,kernels,lessons,labs,tui,cli} "$T"/labs/{core,kmeans,transport}
printf '#include "lessons/lesson.h"\n' >"$T/db/up.c"          # upward
printf '#include "grader/grader.h"\n' >"$T/labs/side.c"       # sideways
printf '#include "db/db_internal.h"\n' >"$T/lessons/inner.c"  # another module's internals
printf '#include <sqlite3.h>\n' >"$T/tui/foreign.c"            # a foreign header elsewhere
printf '#include "kernels/kernels.h"\n' >"$T/tui/gpu.c"        # tui never uses kernels
printf '#include "db/db.h"\n#include <lua.h>\n#include "grader_internal.h"\n' >"$T/grader/fine.c"
printf '#include "labs/lab_author.h"\n' >"$T/cli/author.c"               # the lab authors' header
printf '#include "labs/paramserver/lab_ps.h"\n' >"$T/labs/kmeans/x.c"    # another lab's header
printf '#include "labs/core/lab_noise.h"\n' >"$T/labs/transport/y.c"     # core's own header
printf '#include "labs/kmeans/lab_kmeans.h"\n' >"$T/labs/core/lab_run.c" # a lab's, outside the registry
printf '#include "labs/lab_author.h"\n#include "labs/transport/lab_net.h"\n#include "labs/kmeans/lab_kmeans.h"\n' \
  >"$T/labs/kmeans/fine.c"
printf '#include "labs/kmeans/lab_kmeans.h"\n' >"$T/labs/core/lab_registry.c" # the registry may
out=$("$check" "$T"); rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: planted violations: exit $rc"; fail=1; }
for want in "db/up.c:1: db/ includes \"lessons/lesson.h\"" \
            "labs/side.c:1: labs/ includes \"grader/grader.h\"" \
            "lessons/inner.c:1: lessons/ includes \"db/db_internal.h\", which is db/'s own" \
            "tui/foreign.c:1: includes <sqlite3.h>, which only db/ may include" \
            "tui/gpu.c:1: tui/ includes \"kernels/kernels.h\"" \
            "grader/fine.c:1: grader/ includes \"db/db.h\"" \
            "cli/author.c:1: cli/ includes \"labs/lab_author.h\", which is labs/'s own" \
            "labs/kmeans/x.c:1: labs/kmeans/ includes \"labs/paramserver/lab_ps.h\", which is labs/paramserver/'s own" \
            "labs/transport/y.c:1: labs/transport/ includes \"labs/core/lab_noise.h\", which is labs/core/'s own" \
            "labs/core/lab_run.c:1: labs/core/ includes \"labs/kmeans/lab_kmeans.h\", which is labs/kmeans/'s own"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: not reported: $want"; echo "$out"; fail=1; }
done
[ "$(grep -c . <<<"$out")" -eq 10 ] || { echo "FAIL: expected exactly 10 reports:"; echo "$out"; fail=1; }
out=$("$check" "$src") || { echo "FAIL: the repository breaks its layering:"; echo "$out"; fail=1; }
[ "$fail" -eq 0 ] && echo "layering check: ok"
exit "$fail"
