#!/usr/bin/env bash
# The layering check refuses what ARCHITECTURE.md forbids (each planted
# violation is named), and the repository passes it.
set -u
src=${WB_SOURCE_DIR:?}
check="$src/scripts/check-layering.sh"
T=$(mktemp -d "${WB_TEST_TMP:-/tmp}/layering.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
mkdir -p "$T"/{core,db,grader,kernels,lessons,labs,tui,cli} "$T"/labs/{core,kmeans,transport} \
  "$T"/grader/{pure,runtime}
printf '#include "lessons/lesson.h"\n' >"$T/db/up.c"          # upward
printf '#include "grader/grader.h"\n' >"$T/labs/side.c"       # sideways
printf '#include "db/db_internal.h"\n' >"$T/lessons/inner.c"  # another module's internals
printf '#include <sqlite3.h>\n' >"$T/tui/foreign.c"            # a foreign header elsewhere
printf '#include "kernels/kernels.h"\n' >"$T/tui/gpu.c"        # tui never uses kernels
printf '#include "db/db.h"\n#include "grader_lua_internal.h"\n' >"$T/grader/fine.c"
# grader/'s layers: pure <- runtime <- packs and grading; Lua in the runtime
printf '#include <lua.h>\n#include "grader_runtime.h"\n#include "grader/grader.h"\n#include "grader/pure/grader_pure.h"\n' \
  >"$T/grader/runtime/fine.c"
printf '#include "grader_pure.h"\n#include "core/core.h"\n' >"$T/grader/pure/fine.c"
printf '#include <lauxlib.h>\n' >"$T/grader/pure/lua.c"                       # Lua in the pure layer
printf '#include "grader/runtime/grader_runtime.h"\n' >"$T/grader/pure/up.c"   # a layer up
printf '#include "grader/grader.h"\n' >"$T/grader/pure/api.c"                 # the top's header
printf '#include "grader/grader_lua_internal.h"\n' >"$T/grader/runtime/up.c"   # a layer up
printf '#include <lua.h>\n' >"$T/grader/grader_new.c"                        # new Lua stack work on top
printf '#include "../core/core.h"\n' >"$T/db/climb.c"                         # ..
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
            "grader/pure/lua.c:1: grader/pure/ includes <lauxlib.h>: the pure layer is C without Lua" \
            "grader/pure/up.c:1: grader/'s pure layer includes \"grader/runtime/grader_runtime.h\", of the runtime layer above it" \
            "grader/pure/api.c:1: grader/'s pure layer includes \"grader/grader.h\", of the api layer above it" \
            "grader/runtime/up.c:1: grader/'s runtime layer includes \"grader/grader_lua_internal.h\", of the top layer above it" \
            "grader/grader_new.c:1: includes <lua.h>: Lua stack work belongs in grader/runtime/" \
            "db/climb.c:1: includes \"../core/core.h\": an include names a module's header from the top" \
            "cli/author.c:1: cli/ includes \"labs/lab_author.h\", which is labs/'s own" \
            "labs/kmeans/x.c:1: labs/kmeans/ includes \"labs/paramserver/lab_ps.h\", which is labs/paramserver/'s own" \
            "labs/transport/y.c:1: labs/transport/ includes \"labs/core/lab_noise.h\", which is labs/core/'s own" \
            "labs/core/lab_run.c:1: labs/core/ includes \"labs/kmeans/lab_kmeans.h\", which is labs/kmeans/'s own"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: not reported: $want"; echo "$out"; fail=1; }
done
[ "$(grep -c . <<<"$out")" -eq 16 ] || { echo "FAIL: expected exactly 16 reports:"; echo "$out"; fail=1; }
out=$("$check" "$src") || { echo "FAIL: the repository breaks its layering:"; echo "$out"; fail=1; }
[ "$fail" -eq 0 ] && echo "layering check: ok"
exit "$fail"
